/**
 * The account pages' theme before paint (ADR 062): the signed-in app's next-themes provider does this with its own
 * inline script, but it needs React on the page, and these pages ship none. Same storage key and result as the
 * provider's settings in components/providers.tsx (class attribute, "system" by default): the class `dark` or
 * `light` on <html> and a matching color-scheme, chosen from the stored choice or else the system's preference.
 * A browser that refuses storage gets the system's preference.
 */
export const THEME_STORAGE_KEY = 'theme';

export const themeScript = `(function(){var e=document.documentElement,t;try{t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)})}catch(_){}var d=t==="dark"||(t!=="light"&&matchMedia("(prefers-color-scheme: dark)").matches),r=d?"dark":"light";e.classList.remove("light","dark");e.classList.add(r);e.style.colorScheme=r})()`;
