import type { SVGProps } from 'react';

/**
 * The attach mark, drawn inline rather than as the 📎 emoji: a browser without an emoji font (Debian's Chromium as
 * installed) shows the emoji as an empty box, and on a phone the composer's Attach button shows nothing else.
 */
export const PaperclipIcon = (props: SVGProps<SVGSVGElement>) => (
  <svg
    width={14}
    height={14}
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    strokeWidth={2}
    strokeLinecap="round"
    strokeLinejoin="round"
    aria-hidden
    {...props}
  >
    <path d="M21.44 11.05l-9.19 9.19a6 6 0 0 1-8.49-8.49l9.19-9.19a4 4 0 0 1 5.66 5.66l-9.2 9.19a2 2 0 0 1-2.83-2.83l8.49-8.48" />
  </svg>
);
