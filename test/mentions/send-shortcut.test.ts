import { describe, expect, it } from 'vitest';
import { isSendShortcut } from '@/lib/mentions/send-shortcut';

describe('isSendShortcut', () => {
  const key = (over: Partial<Parameters<typeof isSendShortcut>[0]>) =>
    isSendShortcut({ key: 'Enter', metaKey: false, ctrlKey: false, isComposing: false, ...over });

  it('sends on Ctrl+Enter and Cmd+Enter only', () => {
    expect(key({ ctrlKey: true })).toBe(true);
    expect(key({ metaKey: true })).toBe(true);
    expect(key({})).toBe(false);
    expect(key({ key: 'a', ctrlKey: true })).toBe(false);
  });

  it('never sends while an input method is composing', () => {
    expect(key({ ctrlKey: true, isComposing: true })).toBe(false);
  });
});
