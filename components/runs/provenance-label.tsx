import { cn } from '@/components/ui/cn';
import type { Provenance } from '@/lib/types/provenance';
import { provenanceLabel } from './provenance-text';

/**
 * The small line above a message saying who produced it ("You", "framework · receipt from Review"). Framework
 * labels are set apart in italics so the person's own words and what the system added never look alike.
 */
export function ProvenanceLabel({ provenance, className }: { provenance: Provenance; className?: string }) {
  const framework = provenance.producer.type === 'framework';
  return (
    <span
      data-provenance={provenance.contentKind}
      className={cn(
        'text-xs break-words [overflow-wrap:anywhere]',
        framework ? 'font-medium text-zinc-500 italic dark:text-zinc-400' : 'font-semibold text-zinc-500 dark:text-zinc-400',
        className,
      )}
    >
      {provenanceLabel(provenance)}
    </span>
  );
}
