import { cn } from './cn';
import { Button } from './button';

/** The button row of a dialog that only shows something (a preview, a key list): one Close, at the end. */
export function DialogCloseRow({ onClose, className }: { onClose: () => void; className?: string }) {
  return (
    <div className={cn('flex justify-end', className)}>
      <Button variant="secondary" onClick={onClose}>
        Close
      </Button>
    </div>
  );
}
