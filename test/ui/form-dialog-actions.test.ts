import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FormDialogActions } from '@/components/ui/form-dialog-actions';

const render = (pending: boolean) =>
  renderToStaticMarkup(createElement(FormDialogActions, { submitLabel: 'Save budget', pendingLabel: 'Saving…', pending, onCancel: () => {} }));
const buttons = (html: string) => [...html.matchAll(/<button([^>]*)>([^<]*)<\/button>/g)].map(([, attrs, label]) => ({ attrs: attrs!, label }));

describe('a form dialog’s buttons while the form is sent', () => {
  it('read as unavailable (aria-disabled) but are never disabled, which would drop a keyboard user’s focus to the page', () => {
    const pending = buttons(render(true));
    expect(pending.map((b) => b.label)).toEqual(['Cancel', 'Saving…']);
    for (const b of pending) {
      expect(b.attrs).toContain('aria-disabled="true"');
      expect(b.attrs).not.toMatch(/\sdisabled(=|\s|$)/);
    }
  });

  it('are available again once the outcome is known', () => {
    const idle = buttons(render(false));
    expect(idle.map((b) => b.label)).toEqual(['Cancel', 'Save budget']);
    for (const b of idle) expect(b.attrs).not.toMatch(/\saria-disabled=/);
    expect(idle[1]!.attrs).toContain('type="submit"');
  });
});
