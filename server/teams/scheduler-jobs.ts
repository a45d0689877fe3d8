import 'server-only';
import type { JobPort } from '@/server/scheduler/job-port';
import { admitJob, finalizeJob, launchJob, stopJob } from './execution';
import { registerTeamTools } from './tools/register';

/** Team jobs as the scheduler sees them: its port, implemented by the team domain (start-up wires it in). */
export const teamJobs: JobPort = {
  // A launched member run may call a team tool at once.
  prepare: registerTeamTools,
  admit: admitJob,
  launch: launchJob,
  finalize: finalizeJob,
  stop: stopJob,
};
