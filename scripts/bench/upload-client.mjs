// A client process for bench:files: POSTs a body of BYTES bytes made lazily in 64 KiB chunks (never whole in memory,
// distinct per SEED so nothing is deduplicated) to URL with the bearer TOKEN, and prints the response's status line.
// It also prints the milliseconds from the request's start to the response's end. It runs apart from the server so that the client's own chunks are not counted in the server's resident memory.
import crypto from 'node:crypto';
import http from 'node:http';

const [url, token, bytes, seed] = process.argv.slice(2);
const total = Number(bytes);
const CHUNK = 64 * 1024;
const req = http.request(url, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'content-length': String(total) },
});
let sent = 0;
const started = performance.now();
function write() {
  while (sent < total) {
    const chunk = Buffer.alloc(Math.min(CHUNK, total - sent));
    crypto.randomFillSync(chunk, 0, Math.min(64, chunk.length));
    chunk[chunk.length - 1] = Number(seed) & 0xff;
    sent += chunk.length;
    if (!req.write(chunk)) return void req.once('drain', write);
  }
  req.end();
}
req.on('response', (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (d) => (body += d));
  res.on('end', () => {
    process.stdout.write(JSON.stringify({ status: res.statusCode, body, ms: performance.now() - started }));
  });
});
req.on('error', (err) => {
  console.error(err.message);
  process.exit(1);
});
write();
