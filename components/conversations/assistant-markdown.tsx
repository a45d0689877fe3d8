import Markdown, { type Components } from 'react-markdown';

/**
 * Assistant text as markdown. Raw HTML is never enabled (react-markdown shows it as text), dangerous URL
 * schemes are removed by its default urlTransform, links open in a new tab without a referrer, and images are
 * shown as links so model output cannot make the browser load a remote resource on its own.
 */
const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer nofollow"
        className="break-words text-indigo-700 underline underline-offset-2 hover:text-indigo-600 dark:text-indigo-300 dark:hover:text-indigo-200"
      >
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  img: ({ src, alt }) =>
    typeof src === 'string' && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer nofollow" className="break-all text-indigo-700 underline dark:text-indigo-300">
        {`Image: ${alt || src}`}
      </a>
    ) : (
      <span>{alt ? `Image: ${alt}` : null}</span>
    ),
  p: ({ children }) => <p className="my-2 first:mt-0 last:mb-0">{children}</p>,
  // Message headings sit below the page's h1/h2, so they are shifted down.
  h1: ({ children }) => <h3 className="mt-3 mb-1 text-base font-semibold">{children}</h3>,
  h2: ({ children }) => <h4 className="mt-3 mb-1 text-base font-semibold">{children}</h4>,
  h3: ({ children }) => <h5 className="mt-3 mb-1 font-semibold">{children}</h5>,
  h4: ({ children }) => <h6 className="mt-3 mb-1 font-semibold">{children}</h6>,
  h5: ({ children }) => <h6 className="mt-3 mb-1 font-semibold">{children}</h6>,
  h6: ({ children }) => <h6 className="mt-3 mb-1 font-semibold">{children}</h6>,
  ul: ({ children }) => <ul className="my-2 list-disc space-y-1 pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="my-2 list-decimal space-y-1 pl-5">{children}</ol>,
  blockquote: ({ children }) => (
    <blockquote className="my-2 border-l-2 border-zinc-300 pl-3 text-zinc-600 dark:border-zinc-600 dark:text-zinc-300">{children}</blockquote>
  ),
  pre: ({ children }) => (
    <pre className="my-2 max-w-full overflow-x-auto rounded-md bg-zinc-100 p-3 text-xs dark:bg-zinc-950">{children}</pre>
  ),
  code: ({ children, className }) => (
    <code className={`rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.85em] break-words dark:bg-zinc-950 ${className ?? ''}`}>{children}</code>
  ),
  hr: () => <hr className="my-3 border-zinc-200 dark:border-zinc-700" />,
};

export function AssistantMarkdown({ text }: { text: string }) {
  return (
    <div className="min-w-0 break-words [overflow-wrap:anywhere]">
      <Markdown components={components}>{text}</Markdown>
    </div>
  );
}
