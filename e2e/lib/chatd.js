'use strict';
// Starts a real chatd for a test file: builds it (unless CHATD_BIN names a
// binary), provisions an organization and users with the admin commands,
// serves it over SQLite in a temporary directory on a random loopback port,
// and hands out zulip-js clients for its users.

const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const zulip = require('zulip-js');

const repo = path.resolve(__dirname, '..', '..');

// JWT_SECRET is the HS256 key chatd is started with, so that the tests can
// sign tokens for POST /jwt/fetch_api_key.
const JWT_SECRET = 'e2e-jwt-secret-of-at-least-32-bytes!';
const VIDEO_URL = 'https://meet.example.org';

function buildChatd(dir) {
  if (process.env.CHATD_BIN) return process.env.CHATD_BIN;
  const bin = path.join(dir, 'chatd');
  execFileSync('go', ['build', '-o', bin, './cmd/chatd'], { cwd: repo, stdio: 'inherit' });
  return bin;
}

// relay is a push notification relay on loopback that records what chatd
// posts to it (the relay protocol of the README).
function startRelay() {
  const received = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body: JSON.parse(body || 'null') });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, received, url: `http://relay:relay-secret@127.0.0.1:${server.address().port}` }));
  });
}

// start provisions and serves a chatd. users maps a name to the options
// of `chatd create-user` (email, name, role, password, bot-type,
// bot-owner-id); the owner is always there, as `owner`.
async function start(users = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatd-e2e-'));
  const bin = buildChatd(dir);
  const data = path.join(dir, 'data');
  const admin = (args) => JSON.parse(execFileSync(bin, [...args, '--data', data], { encoding: 'utf8' }));

  const org = admin(['create-org', '--name', 'E2E Org', '--owner-email', 'owner@e2e.example',
    '--owner-name', 'Olivia Owner', '--owner-password', 'owner-password']);
  const accounts = { owner: { user_id: org.user_id, email: org.email, api_key: org.api_key, password: 'owner-password' } };
  for (const [key, u] of Object.entries(users)) {
    const args = ['create-user', '--realm-id', String(org.realm_id), '--email', u.email, '--name', u.name];
    for (const flag of ['role', 'password', 'bot-type', 'bot-owner-id']) {
      if (u[flag] !== undefined) args.push(`--${flag}`, String(typeof u[flag] === 'function' ? u[flag](accounts) : u[flag]));
    }
    if (u.canChangeUserEmails) args.push('--can-change-user-emails');
    accounts[key] = { ...admin(args), password: u.password };
  }

  const relay = await startRelay();
  const child = spawn(bin, ['serve', '--data', data, '--listen', '127.0.0.1:0', '--rate-limit', '0',
    '--jwt-secret', JWT_SECRET, '--videocall-provider', 'jitsi', '--videocall-url', VIDEO_URL,
    '--push-relay-url', relay.url, '--max-upload-mib', '5'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const base = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      log += chunk;
      const m = /addr=(http:\/\/\S+)/.exec(log);
      if (m) resolve(m[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`chatd exited with ${code} before serving:\n${log}`)));
    setTimeout(() => reject(new Error(`chatd did not report its address in 10 s:\n${log}`)), 10000).unref();
  });

  const clients = {};
  for (const [key, a] of Object.entries(accounts)) {
    clients[key] = await zulip({ username: a.email, apiKey: a.api_key, realm: base });
  }

  return {
    base, api: `${base}/api/v1`, accounts, clients, relay, realmId: org.realm_id,
    log: () => log,
    // client returns a zulip-js client for credentials.
    client: (config) => zulip({ realm: base, ...config }),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      relay.server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ok asserts a success envelope and returns the body.
function ok(res) {
  if (!res || res.result !== 'success' || res.msg !== '') {
    throw new Error(`expected a success, got ${JSON.stringify(res)}`);
  }
  return res;
}

module.exports = { start, ok, JWT_SECRET, VIDEO_URL };
