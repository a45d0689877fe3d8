'use client';

import { Highlight, type Token } from 'prism-react-renderer';
import { cn } from '@/components/ui/cn';
import { tokenClass } from './code-tokens';

/**
 * Code highlighted by Prism (prism-react-renderer: tokens rendered as React elements, no HTML string, so nothing
 * can inject markup). Colours come from Tailwind classes with dark variants (code-tokens.ts), not the library's
 * themes, so light and dark follow the page. Loaded lazily (code-view-lazy.tsx): only a code preview ships it.
 * A language Prism doesn't know is shown as plain text.
 */
export default function CodeView({ code, language }: { code: string; language: string }) {
  return (
    <Highlight code={code} language={language.toLowerCase()} theme={{ plain: {}, styles: [] }}>
      {({ tokens, getLineProps, getTokenProps }) => (
        <pre
          className="max-h-[60vh] overflow-auto rounded-md bg-zinc-100 p-3 font-mono text-xs leading-5 text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100"
          tabIndex={0}
          aria-label={`Code (${language})`}
        >
          {tokens.map((line, i) => {
            const { key: _lineKey, style: _lineStyle, ...lineProps } = getLineProps({ line });
            return (
              <div key={i} {...lineProps}>
                {line.map((token: Token, j) => {
                  const { key: _tokenKey, style: _tokenStyle, className, ...tokenProps } = getTokenProps({ token });
                  return <span key={j} {...tokenProps} className={cn(className, tokenClass(token.types))} />;
                })}
              </div>
            );
          })}
        </pre>
      )}
    </Highlight>
  );
}
