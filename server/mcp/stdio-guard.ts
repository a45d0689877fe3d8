import 'server-only';
/**
 * The launcher every stdio server runs under (ADR 054): `node -e STDIO_GUARD <command> <args…>`. It starts the
 * command with the server's stdout and stderr passed straight through and its stdin relayed, and ends it (SIGTERM,
 * then SIGKILL after 2 s) as soon as its own stdin closes — which happens when the app closes the connection and when
 * the app dies, even by SIGKILL — or when it is itself told to stop. Many servers exit on stdin EOF by themselves; this
 * makes it hold for any command an admin configures, so a killed app leaves no server running. It also leaves when its
 * parent changes (the app died while the pipe was somehow kept open).
 */
export const STDIO_GUARD = `
const { spawn } = require('node:child_process');
const [command, ...args] = process.argv.slice(1);
const parent = process.ppid;
const child = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'] });
let ending = false;
const end = () => {
  if (ending) return;
  ending = true;
  try { child.kill('SIGTERM'); } catch {}
  setTimeout(() => { try { child.kill('SIGKILL'); } catch {} process.exit(1); }, 2000).unref();
};
child.on('error', (err) => { process.stderr.write('Could not start ' + command + ': ' + err.message + '\\n'); process.exit(127); });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.stdin.on('error', () => {});
process.stdin.pipe(child.stdin);
process.stdin.on('end', end);
process.stdin.on('close', end);
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, end);
setInterval(() => { if (process.ppid !== parent) end(); }, 1000).unref();
`;
