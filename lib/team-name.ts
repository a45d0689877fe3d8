/**
 * The key that makes team names unique per owner regardless of case and spacing around them, as agent names are:
 * an @mention names "Team / Member", so two teams of one name would offer targets nobody can tell apart.
 */
export function teamNameKey(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}
