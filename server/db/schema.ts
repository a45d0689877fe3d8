import 'server-only';
import * as pg from './pg-schema';
import * as sqlite from './sqlite-schema';
import { databaseEngine } from './engine';

/**
 * The tables of the engine this process runs on (ADR 033): `sqlite-schema.ts` by default, its twin `pg-schema.ts`
 * when DATABASE_URL is Postgres. Both are typed as the SQLite tables: their row types are equal (proven by
 * test/db/schema-parity.test.ts), and domain code only uses the query-builder subset both dialects share, always
 * awaited. Chosen once, when the module loads: an engine never changes inside a process.
 */
const tables = (databaseEngine() === 'postgres' ? pg : sqlite) as unknown as typeof sqlite;

export const users = tables.users;
export const invitations = tables.invitations;
export const apiTokens = tables.apiTokens;
export const signInFailures = tables.signInFailures;
export const signInKnownAddresses = tables.signInKnownAddresses;
export const agents = tables.agents;
export const conversations = tables.conversations;
export const runs = tables.runs;
export const delegations = tables.delegations;
export const teams = tables.teams;
export const teamMembers = tables.teamMembers;
export const jobs = tables.jobs;
export const sharedMessages = tables.sharedMessages;
export const stateEntries = tables.stateEntries;
export const appProcesses = tables.appProcesses;
export const teamLeases = tables.teamLeases;
export const schedulerRounds = tables.schedulerRounds;
export const providers = tables.providers;
export const providerCalls = tables.providerCalls;
export const modelPrices = tables.modelPrices;
export const mcpServers = tables.mcpServers;
export const files = tables.files;
export const fileVersions = tables.fileVersions;
export const fileBlobs = tables.fileBlobs;
export const fileAttachments = tables.fileAttachments;
export const mcpDiscoveries = tables.mcpDiscoveries;
export const batches = tables.batches;
export const batchItems = tables.batchItems;
export const skills = tables.skills;
export const skillFiles = tables.skillFiles;
export const webCalls = tables.webCalls;

export { FINISHED_JOB_STATUSES, JOB_STATUSES, RUN_STATUSES, STATE_KINDS, TEAM_STATUSES, UNFINISHED_JOB_PREDICATE, UNFINISHED_JOB_STATUSES } from './sqlite-schema';
export type {
  Agent,
  AgentMcpTools,
  AllowedSubagents,
  ApiToken,
  Batch,
  BatchItem,
  Conversation,
  Delegation,
  FileRow,
  FileVersionRow,
  Invitation,
  Job,
  JobStatus,
  Run,
  RunStatus,
  SharedMessage,
  SkillRow,
  StateEntry,
  Team,
  TeamMember,
  User,
} from './sqlite-schema';
