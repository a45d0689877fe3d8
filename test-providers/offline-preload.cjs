/**
 * `node --require test-providers/offline-preload.cjs` (via NODE_OPTIONS): the process may connect to loopback
 * addresses and Unix sockets only. Any other connection (net, tls, http(s), fetch: they all end in
 * net.Socket#connect) and any DNS lookup of a name other than localhost fails with ECONNREFUSED / ENOTFOUND, and is
 * appended to OFFLINE_LOG as a JSON line { kind, host, port, stack }. The first line records that the guard loaded
 * (with the pid), so a test can tell "no attempts" from "the guard never ran".
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a --require preload is CommonJS */
const dns = require('node:dns');
const fs = require('node:fs');
const net = require('node:net');

const logFile = process.env.OFFLINE_LOG;
if (!logFile) throw new Error('offline-preload: set OFFLINE_LOG to the file that records refused connections');
const record = (entry) => fs.appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
record({ kind: 'loaded' });

const isLoopbackName = (host) => host === 'localhost' || host.endsWith('.localhost');
function isLoopback(host) {
  if (!host || isLoopbackName(host)) return true;
  const bare = host.replace(/^\[|\]$/g, '');
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

const where = () => (new Error().stack ?? '').split('\n').slice(3, 12).join('\n');

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = args[0];
  const options = Array.isArray(first) ? first[0] : typeof first === 'object' && first !== null ? first : typeof first === 'string' && Number.isNaN(Number(first)) ? { path: first } : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  if (!options.path) {
    const host = options.host ?? 'localhost';
    if (!isLoopback(host)) {
      record({ kind: 'connect', host, port: options.port ?? null, stack: where() });
      const error = Object.assign(new Error(`connect ECONNREFUSED ${host}:${options.port} (offline: outbound connections are refused)`), { code: 'ECONNREFUSED', syscall: 'connect', address: host, port: options.port });
      process.nextTick(() => this.destroy(error));
      return this;
    }
  }
  return connect.apply(this, args);
};

function refusedName(hostname) {
  record({ kind: 'dns', host: hostname, stack: where() });
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (offline)`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
}

const lookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, options, callback) {
  const done = typeof options === 'function' ? options : callback;
  if (typeof hostname === 'string' && !isLoopback(hostname) && !net.isIP(hostname)) {
    const error = refusedName(hostname);
    process.nextTick(() => done(error));
    return {};
  }
  return lookup.call(this, hostname, options, callback);
};
const promisesLookup = dns.promises.lookup;
dns.promises.lookup = async function guardedPromisesLookup(hostname, options) {
  if (typeof hostname === 'string' && !isLoopback(hostname) && !net.isIP(hostname)) throw refusedName(hostname);
  return promisesLookup.call(this, hostname, options);
};
