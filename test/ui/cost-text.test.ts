import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CostText } from '@/components/ui/cost-text';

const seen = (html: string) => html.replace(/<span class="sr-only">[^<]*<\/span>/g, '').replace(/<[^>]+>/g, '');
const heard = (html: string) => html.replace(/<span aria-hidden="true">[^<]*<\/span>/g, '').replace(/<[^>]+>/g, '');
const render = (props: Parameters<typeof CostText>[0]) => renderToStaticMarkup(createElement(CostText, props));

describe('a cost beside tokens', () => {
  it('shows a known cost, and a known sum with the runs whose cost is unknown beside it', () => {
    expect(seen(render({ usd: '0.0042' }))).toBe('$0.0042');
    expect(seen(render({ usd: '0.0263', unknownRuns: 2 }))).toBe('$0.0263 + 2 unknown');
    // Runs known to be free (no model calls) are $0.00, not unknown.
    expect(seen(render({ usd: '0.00' }))).toBe('$0.00');
  });

  it('reads a sum of nothing known but unknown runs as unknown, never "$0.00 + n unknown"', () => {
    for (const usd of ['0.00', '0', '0.000000000']) {
      const html = render({ usd, unknownRuns: 3 });
      expect(seen(html)).toBe('—');
      expect(heard(html)).toBe('cost unknown');
    }
    expect(seen(render({ usd: null }))).toBe('—');
  });
});
