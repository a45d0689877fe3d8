import { EmptyState } from '@/components/ui/misc';

/** The inbox with nothing waiting: what would show here, from every source the inbox lists (ADR 056, ADR 059). */
export function InboxEmpty() {
  return <EmptyState title="Nothing needs you">Questions and tool approvals from your chats, teams and batches will show here.</EmptyState>;
}
