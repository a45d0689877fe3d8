/**
 * Start a team export's download (GET /api/v1/teams/:id/export, an attachment): a link the browser follows with
 * the session cookie, so the file streams straight to disk instead of through the page's memory.
 */
/** `zip`: team.md, team.json and the latest version of every workspace file (ADR 058). */
export type ExportFormat = 'md' | 'json' | 'zip';

export const exportUrl = (teamId: string, format: ExportFormat) => `/api/v1/teams/${encodeURIComponent(teamId)}/export?format=${format}`;

export function downloadTeamExport(teamId: string, format: ExportFormat): void {
  const link = document.createElement('a');
  link.href = exportUrl(teamId, format);
  link.download = '';
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}
