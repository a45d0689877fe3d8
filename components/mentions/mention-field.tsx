'use client';

import { useSyncExternalStore, type KeyboardEvent, type RefObject } from 'react';
import { cn } from '@/components/ui/cn';
import { Textarea } from '@/components/ui/input';
import type { ListTexts, MentionOption } from '@/lib/mentions/picker';
import { isSendShortcut } from '@/lib/mentions/send-shortcut';
import { MentionListbox } from './mention-listbox';
import { RecipientChips } from './recipient-chips';
import type { MentionPicker } from './use-mention-picker';

const noSubscription = () => () => {};
/** False in the server's HTML and while React hydrates it, true once this client renders (no effect, no flash). */
const useHydrated = () =>
  useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );

type Props<T extends MentionOption> = {
  id: string;
  label: string;
  /** The label is read by screen readers only (the surrounding section names the composer visibly). */
  labelHidden?: boolean;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  picker: MentionPicker<T>;
  /** The listbox's accessible name. */
  listLabel: string;
  listTexts: ListTexts;
  onRetryList?: () => void;
  recipients: readonly { key: string; label: string }[];
  onRemoveRecipient: (key: string) => void;
  /** Shown while no recipient is picked. */
  noRecipientsHint?: string;
  value: string;
  onValueChange: (value: string) => void;
  /** Cmd/Ctrl+Enter (never while an input method composes). */
  onSendShortcut: () => void;
  rows?: number;
  placeholder?: string;
  describedBy?: string;
  invalid?: boolean;
  className?: string;
};

/**
 * The one @mention composer's field, whatever the targets are (team members of one team, or of every team a
 * conversation can reach): label, recipient chips, the list and the textarea with its keyboard and IME rules.
 * Enter is a newline (it picks while the list is open); Cmd/Ctrl+Enter sends. Sending itself is the feature's.
 */
export function MentionField<T extends MentionOption>(props: Props<T>) {
  const { id, picker, textareaRef } = props;
  // A page rendered on the server shows the field before its handlers exist; what was typed then would not reach
  // the draft. Read-only until hydrated, so nothing typed is lost (and tests that wait for "editable" wait for it).
  const hydrated = useHydrated();

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (picker.onKeyDown(e)) return;
    if (isSendShortcut({ key: e.key, metaKey: e.metaKey, ctrlKey: e.ctrlKey, isComposing: e.nativeEvent.isComposing })) {
      e.preventDefault();
      props.onSendShortcut();
    }
  };

  return (
    <>
      <label htmlFor={id} className={props.labelHidden ? 'sr-only' : 'block text-sm font-medium text-zinc-800 dark:text-zinc-200'}>
        {props.label}
      </label>
      <RecipientChips
        recipients={props.recipients}
        emptyHint={props.noRecipientsHint}
        onRemove={(key) => {
          props.onRemoveRecipient(key);
          textareaRef.current?.focus();
        }}
      />
      <div className="relative">
        {picker.open ? (
          <MentionListbox
            id={picker.listboxId}
            label={props.listLabel}
            content={picker.content}
            texts={props.listTexts}
            activeIndex={picker.activeIndex}
            onPick={picker.pick}
            onHover={picker.setActive}
            onRetry={props.onRetryList}
          />
        ) : null}
        <Textarea
          ref={textareaRef}
          id={id}
          value={props.value}
          placeholder={props.placeholder}
          rows={props.rows ?? 3}
          readOnly={!hydrated}
          onChange={(e) => {
            props.onValueChange(e.target.value);
            picker.onTextChange(e.target.value, e.target.selectionStart);
          }}
          onKeyDown={onKeyDown}
          {...picker.textareaProps}
          aria-invalid={props.invalid || undefined}
          aria-describedby={props.describedBy}
          className={cn('min-h-20 resize-y', props.className)}
        />
      </div>
    </>
  );
}
