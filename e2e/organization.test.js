'use strict';
// Server settings, the OpenAPI document, organization administration,
// events and typing, push and uploads (SPEC.md 16, 18, 20-24), driven
// through zulip-js against a real chatd.

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { start, ok, VIDEO_URL } = require('./lib/chatd');

const j = JSON.stringify;
let srv;
let z;
let a;

before(async () => {
  srv = await start({
    admin: { email: 'adam@e2e.example', name: 'Adam Admin', role: 'admin' },
    member: { email: 'mel@e2e.example', name: 'Mel Member' },
    other: { email: 'otto@e2e.example', name: 'Otto Other' },
  });
  z = srv.clients;
  a = srv.accounts;
});
after(() => srv && srv.stop());

describe('server', () => {
  test('GET /server_settings (SPEC 24) through zulip.server.settings', async () => {
    const s = ok(await z.member.server.settings());
    assert.equal(s.realm_name, 'E2E Org');
    assert.equal(s.realm_url, s.realm_uri);
    assert.equal(s.push_notifications_enabled, true);
    assert.equal(s.zulip_feature_level, s.service_feature_level);
    assert.equal(s.authentication_methods.password, true);
    assert.deepEqual(s.external_authentication_methods, []);
    // Without credentials, as a login screen asks.
    const anonymous = await (await fetch(`${srv.api}/server_settings`)).json();
    assert.equal(anonymous.realm_name, 'E2E Org');
  });

  test('GET /openapi.json', async () => {
    const res = await fetch(`${srv.api}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.openapi, '3.1.0');
    for (const p of ['/users/me/subscriptions', '/server_settings', '/realm/filters', '/user_uploads', '/messages',
      '/messages/matches_narrow', '/messages/{message_id}/reactions', '/messages/{message_id}/report', '/messages/{message_id}/typing']) {
      assert.ok(doc.paths[p], `${p} is described`);
    }
  });
});

describe('organization', () => {
  test('linkifiers: POST /realm/filters (SPEC 18), list, PATCH, DELETE through zulip.filters', async () => {
    const added = ok(await z.admin.callEndpoint('/realm/filters', 'POST', {
      pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}', example_input: '#123', reverse_template: '#{id}',
      alternative_url_templates: ['https://t.example/{id}'],
    }));
    const list = ok(await z.member.filters.retrieve());
    assert.deepEqual(list.linkifiers, [{
      id: added.id, pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}', example_input: '#123',
      reverse_template: '#{id}', alternative_url_templates: ['https://t.example/{id}'],
    }]);
    ok(await z.admin.callEndpoint(`/realm/filters/${added.id}`, 'PATCH', { pattern: 'T(?P<id>[0-9]+)', url_template: 'https://t/{id}' }));
    assert.equal(ok(await z.member.callEndpoint('/realm/linkifiers', 'GET')).linkifiers[0].pattern, 'T(?P<id>[0-9]+)');
    ok(await z.admin.callEndpoint(`/realm/filters/${added.id}`, 'DELETE'));
    assert.deepEqual(ok(await z.member.callEndpoint('/realm/linkifiers', 'GET')).linkifiers, []);
    const denied = await z.member.callEndpoint('/realm/filters', 'POST', { pattern: 'x', url_template: 'https://x' });
    assert.equal(denied.code, 'UNAUTHORIZED_PRINCIPAL');
  });

  test('allowed domains: POST /realm/domains (SPEC 20, owners), list, PATCH, DELETE', async () => {
    const added = ok(await z.owner.callEndpoint('/realm/domains', 'POST', { domain: 'e2e.example', allow_subdomains: 'false' }));
    assert.ok(Number.isInteger(added.new_domain[0]));
    assert.equal(added.new_domain[1], 'e2e.example');
    ok(await z.owner.callEndpoint('/realm/domains/e2e.example', 'PATCH', { allow_subdomains: 'true' }));
    assert.deepEqual(ok(await z.member.callEndpoint('/realm/domains', 'GET')).domains, [{ domain: 'e2e.example', allow_subdomains: true }]);
    assert.deepEqual(await z.admin.callEndpoint('/realm/domains', 'POST', { domain: 'x.example', allow_subdomains: 'false' }),
      { result: 'error', msg: 'Must be an organization owner', code: 'UNAUTHORIZED_PRINCIPAL' });
    ok(await z.owner.callEndpoint('/realm/domains/e2e.example', 'DELETE'));
  });

  test('PATCH /realm', async () => {
    const res = ok(await z.admin.callEndpoint('/realm', 'PATCH', { description: 'Testing **end to end**' }));
    assert.equal(res.description, 'Testing **end to end**');
    const s = ok(await z.member.server.settings());
    assert.match(s.realm_description, /Testing/);
  });

  test('POST /calls/videocall/create (SPEC 22)', async () => {
    const reg = ok(await z.member.queues.register({ fetch_event_types: ['video_calls'] }));
    assert.equal(reg.has_videocall_token, true);
    const call = ok(await z.member.callEndpoint('/calls/videocall/create', 'POST'));
    assert.ok(call.url.startsWith(`${VIDEO_URL}/`), call.url);
  });
});

describe('events', () => {
  test('POST /register, GET /events, DELETE /events through zulip.queues and zulip.events', async () => {
    const reg = ok(await z.other.queues.register({ event_types: ['typing', 'subscription'], fetch_event_types: ['realm'] }));
    assert.equal(typeof reg.queue_id, 'string');
    assert.equal(reg.max_stream_name_length, 60);
    assert.equal(reg.max_topic_length, 60);
    assert.equal(reg.realm_empty_topic_display_name, 'general chat');

    // POST /typing through zulip.typing.send reaches the recipient.
    ok(await z.member.typing.send({ op: 'start', to: [a.other.user_id] }));
    // A subscription made by someone else shows up as an event too.
    ok(await z.member.users.me.subscriptions.add({ subscriptions: j([{ name: 'events' }]), principals: j([a.other.user_id]) }));
    const evs = ok(await z.other.events.retrieve({ queue_id: reg.queue_id, last_event_id: -1 }));
    const typing = evs.events.find((e) => e.type === 'typing');
    assert.deepEqual([typing.op, typing.sender.user_id, typing.recipients.map((r) => r.user_id).sort()],
      ['start', a.member.user_id, [a.member.user_id, a.other.user_id].sort()]);
    const sub = evs.events.find((e) => e.type === 'subscription' && e.op === 'add');
    assert.deepEqual(sub.subscriptions.map((s) => s.name), ['events']);

    ok(await z.other.queues.deregister({ queue_id: reg.queue_id }));
    const gone = await z.other.events.retrieve({ queue_id: reg.queue_id, last_event_id: -1, dont_block: 'true' });
    assert.equal(gone.code, 'BAD_EVENT_QUEUE_ID');
  });
});

describe('push', () => {
  test('POST /users/me/ios_device_token (SPEC 16)', async () => {
    ok(await z.member.callEndpoint('/users/me/ios_device_token', 'POST', { token: 'abcdef0123456789', appid: 'org.example.app' }));
    assert.deepEqual(await z.member.callEndpoint('/users/me/ios_device_token', 'POST', { token: '', appid: 'org.example.app' }),
      { result: 'error', msg: 'Empty or invalid length token', code: 'BAD_REQUEST' });
    assert.deepEqual(await z.member.callEndpoint('/users/me/ios_device_token', 'POST', { token: 'not hex!', appid: 'org.example.app' }),
      { result: 'error', msg: 'Invalid push token', code: 'BAD_REQUEST' });
  });

  test('POST /mobile_push/e2ee/test_notification (SPEC 21) through the relay', async () => {
    assert.deepEqual(await z.member.callEndpoint('/mobile_push/e2ee/test_notification', 'POST'),
      { result: 'error', msg: 'No active registered push device', code: 'NO_ACTIVE_PUSH_DEVICE' });
    const device = ok(await z.member.callEndpoint('/register_client_device', 'POST'));
    const key = Buffer.concat([Buffer.from([0x31]), Buffer.alloc(32, 7)]).toString('base64');
    ok(await z.member.callEndpoint('/mobile_push/register', 'POST', {
      device_id: device.device_id, push_key: key, push_key_id: 7, token_kind: 'fcm', token_id: 'AAECAwQFBgc=',
      bouncer_public_key: 'bouncer-key', encrypted_push_registration: 'sealed-registration',
    }));
    ok(await z.member.callEndpoint('/mobile_push/e2ee/test_notification', 'POST', { device_id: device.device_id }));
    const sent = srv.relay.received.at(-1);
    assert.equal(sent.url, '/notify');
    assert.equal(sent.authorization, `Basic ${Buffer.from('relay:relay-secret').toString('base64')}`);
    assert.equal(sent.body.user_id, a.member.user_id);
    assert.deepEqual(sent.body.devices.map((d) => [d.device_id, d.push_key_id, d.token_kind, d.encrypted_push_registration]),
      [[device.device_id, 7, 'fcm', 'sealed-registration']]);
    ok(await z.member.callEndpoint('/remove_client_device', 'POST', { device_id: device.device_id }));
  });
});

describe('uploads', () => {
  test('POST /user_uploads (SPEC 23) with a file stream, then download it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-'));
    const file = path.join(dir, 'notes [draft].txt');
    fs.writeFileSync(file, 'hello from zulip-js\n');
    try {
      // zulip-js has no upload call; its generic call sends a multipart
      // body, and a file stream becomes a file part named after the file.
      const res = ok(await z.member.callEndpoint('/user_uploads', 'POST', { file: fs.createReadStream(file) }));
      assert.equal(res.filename, 'notes [draft].txt');
      assert.equal(res.url, res.uri);
      assert.match(res.url, new RegExp(`^/user_uploads/${srv.realmId}/[0-9a-f]{2}/[A-Za-z0-9_-]+/notes-draft\\.txt$`));
      const auth = `Basic ${Buffer.from(`${a.member.email}:${a.member.api_key}`).toString('base64')}`;
      const body = await (await fetch(srv.base + res.url, { headers: { Authorization: auth } })).text();
      assert.equal(body, 'hello from zulip-js\n');
      // The API form answers a temporary link that needs no credentials.
      const temp = ok(await z.member.callEndpoint(res.url, 'GET'));
      assert.equal(await (await fetch(srv.base + temp.url)).text(), 'hello from zulip-js\n');
      // Only the uploader can read it (no message links it).
      const other = `Basic ${Buffer.from(`${a.other.email}:${a.other.api_key}`).toString('base64')}`;
      assert.equal((await fetch(srv.base + res.url, { headers: { Authorization: other } })).status, 404);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
