import Link from 'next/link';

export default function ConversationNotFound() {
  return (
    <div className="space-y-3 py-4">
      <h1 className="text-2xl font-semibold text-zinc-900 dark:text-zinc-50">Conversation not found</h1>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">It may have been deleted, or it belongs to another account.</p>
      <Link href="/conversations" className="text-sm text-indigo-700 underline dark:text-indigo-300">
        Back to conversations
      </Link>
    </div>
  );
}
