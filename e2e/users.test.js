'use strict';
// Users, profiles, status, logins (SPEC.md 5-11) and the supporting user
// routes, driven through zulip-js against a real chatd.

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { start, ok, JWT_SECRET } = require('./lib/chatd');

const j = JSON.stringify;
let srv;
let z; // zulip-js clients by account name
let a; // accounts by name

before(async () => {
  srv = await start({
    admin: { email: 'adam@e2e.example', name: 'Adam Admin', role: 'admin' },
    member: { email: 'mel@e2e.example', name: 'Mel Member', password: 'member-password' },
    guest: { email: 'gus@e2e.example', name: 'Gus Guest', role: 'guest' },
    keeper: { email: 'keeper@e2e.example', name: 'Kim Keeper', role: 'owner', canChangeUserEmails: true },
  });
  z = srv.clients;
  a = srv.accounts;
});
after(() => srv && srv.stop());

function jwt(claims) {
  const b64 = (o) => Buffer.from(j(o)).toString('base64url');
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${unsigned}.${crypto.createHmac('sha256', JWT_SECRET).update(unsigned).digest('base64url')}`;
}

describe('users', () => {
  test('GET /users (SPEC 5) through zulip.users.retrieve', async () => {
    const res = ok(await z.member.users.retrieve({ client_gravatar: 'false' }));
    const emails = res.members.map((u) => u.email).sort();
    assert.deepEqual(emails, ['adam@e2e.example', 'gus@e2e.example', 'keeper@e2e.example', 'mel@e2e.example', 'owner@e2e.example']);
    const mel = res.members.find((u) => u.user_id === a.member.user_id);
    assert.equal(mel.full_name, 'Mel Member');
    assert.equal(mel.role, 400);
    assert.equal(mel.bot_type, null);
    assert.equal(mel.is_active, true);
    assert.match(mel.avatar_url, /^https:\/\//);
    const some = ok(await z.member.users.retrieve({ user_ids: j([a.owner.user_id]) }));
    assert.deepEqual(some.members.map((u) => u.user_id), [a.owner.user_id]);
  });

  test('GET /users/{user_id} and /users/{email} (SPEC 6, 7)', async () => {
    const byId = ok(await z.member.callEndpoint(`/users/${a.admin.user_id}`, 'GET', { include_custom_profile_fields: 'true' }));
    assert.equal(byId.user.email, 'adam@e2e.example');
    assert.equal(byId.user.is_admin, true);
    assert.deepEqual(byId.user.profile_data, {});
    const byEmail = ok(await z.member.callEndpoint('/users/adam@e2e.example', 'GET'));
    const { profile_data: _, ...withoutProfile } = byId.user;
    assert.deepEqual(byEmail.user, withoutProfile);
    const missing = await z.member.callEndpoint('/users/999', 'GET');
    assert.deepEqual(missing, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
  });

  test('GET /users/me through zulip.users.me.getProfile', async () => {
    const me = ok(await z.guest.users.me.getProfile());
    assert.equal(me.user_id, a.guest.user_id);
    assert.equal(me.is_guest, true);
    assert.equal(me.role, 600);
  });

  test('custom profile fields and PATCH /users/me/profile_data (SPEC 10)', async () => {
    const field = ok(await z.admin.callEndpoint('/realm/profile_fields', 'POST', { name: 'Phone', field_type: 1, hint: 'Work phone' }));
    const fields = ok(await z.member.callEndpoint('/realm/profile_fields', 'GET'));
    assert.deepEqual(fields.custom_fields.map((f) => [f.id, f.name, f.type, f.hint]), [[field.id, 'Phone', 1, 'Work phone']]);
    ok(await z.member.callEndpoint('/users/me/profile_data', 'PATCH', { data: j([{ id: field.id, value: '+1 **555**' }]) }));
    const me = ok(await z.member.callEndpoint(`/users/${a.member.user_id}`, 'GET', { include_custom_profile_fields: 'true' }));
    assert.deepEqual(me.user.profile_data, { [field.id]: { value: '+1 **555**', rendered_value: '<p>+1 <strong>555</strong></p>' } });
    const bad = await z.member.callEndpoint('/users/me/profile_data', 'PATCH', { data: j([{ id: 999, value: 'x' }]) });
    assert.equal(bad.result, 'error');
    assert.equal(bad.code, 'BAD_REQUEST');
  });

  test('PATCH /users/{user_id} (SPEC 8, administrators)', async () => {
    ok(await z.admin.callEndpoint(`/users/${a.member.user_id}`, 'PATCH', { full_name: 'Mel Renamed', role: 300 }));
    const mel = ok(await z.member.callEndpoint(`/users/${a.member.user_id}`, 'GET'));
    assert.equal(mel.user.full_name, 'Mel Renamed');
    assert.equal(mel.user.role, 300);
    assert.deepEqual(await z.admin.callEndpoint(`/users/${a.guest.user_id}`, 'PATCH', { role: 200 }),
      { result: 'error', msg: 'Guests cannot be organization administrators', code: 'BAD_REQUEST' });
    assert.deepEqual(await z.guest.callEndpoint(`/users/${a.member.user_id}`, 'PATCH', { full_name: 'Nope' }),
      { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
    // new_email needs an owner holding the change-emails permission.
    ok(await z.keeper.callEndpoint(`/users/${a.guest.user_id}`, 'PATCH', { new_email: 'gus.new@e2e.example' }));
    const gus = ok(await z.admin.callEndpoint(`/users/${a.guest.user_id}`, 'GET'));
    assert.equal(gus.user.delivery_email, 'gus.new@e2e.example');
    ok(await z.keeper.callEndpoint(`/users/${a.guest.user_id}`, 'PATCH', { new_email: 'gus@e2e.example' }));
  });

  test('POST /users/me/status (SPEC 9)', async () => {
    ok(await z.member.callEndpoint('/users/me/status', 'POST', { status_text: 'On a train', emoji_name: 'train' }));
    assert.deepEqual(await z.member.callEndpoint('/users/me/status', 'POST', {}),
      { result: 'error', msg: 'Client did not pass any new values.', code: 'BAD_REQUEST' });
    assert.deepEqual(await z.member.callEndpoint('/users/me/status', 'POST', { status_text: 'x'.repeat(61) }),
      { result: 'error', msg: 'status_text is too long (limit: 60 characters)', code: 'BAD_REQUEST' });
    assert.deepEqual(await z.member.callEndpoint('/users/me/status', 'POST', { emoji_code: '1f686' }),
      { result: 'error', msg: 'Client must pass emoji_name if they pass either emoji_code or reaction_type.', code: 'BAD_REQUEST' });
    const reg = ok(await z.owner.queues.register({ fetch_event_types: ['user_status'] }));
    assert.deepEqual(reg.user_status[a.member.user_id], { status_text: 'On a train', emoji_name: 'train', emoji_code: '1f682', reaction_type: 'unicode_emoji' });
  });

  test('PATCH /settings and /realm/user_settings_defaults', async () => {
    ok(await z.member.callEndpoint('/settings', 'PATCH', { email_address_visibility: 5 }));
    const seen = ok(await z.guest.callEndpoint(`/users/${a.member.user_id}`, 'GET'));
    assert.equal(seen.user.delivery_email, null);
    assert.equal(seen.user.email, `user${a.member.user_id}@localhost`);
    // The placeholder address works as a path too.
    ok(await z.guest.callEndpoint(`/users/user${a.member.user_id}@localhost`, 'GET'));
    ok(await z.member.callEndpoint('/settings', 'PATCH', { email_address_visibility: 1 }));
    ok(await z.admin.callEndpoint('/realm/user_settings_defaults', 'PATCH', { email_address_visibility: 1 }));
  });

  test('POST /users, DELETE /users/{id}, POST /users/{id}/reactivate, and a zulip-js password login', async () => {
    const created = ok(await z.owner.users.create({ email: 'ann@e2e.example', password: 'ann-password', full_name: 'Ann Example' }));
    assert.ok(Number.isInteger(created.user_id));
    // zulip-js logs in with a password through POST /fetch_api_key.
    const ann = await srv.client({ username: 'ann@e2e.example', password: 'ann-password' });
    assert.match(ann.config.apiKey, /^[A-Za-z0-9]{32}$/);
    assert.equal(ok(await ann.users.me.getProfile()).full_name, 'Ann Example');
    ok(await z.owner.callEndpoint(`/users/${created.user_id}`, 'DELETE'));
    const off = await ann.users.me.getProfile();
    assert.equal(off.result, 'error');
    assert.equal(off.msg, 'Account is deactivated');
    ok(await z.owner.callEndpoint(`/users/${created.user_id}/reactivate`, 'POST'));
    ok(await ann.users.me.getProfile());
  });

  test('POST /jwt/fetch_api_key (SPEC 11)', async () => {
    const res = ok(await z.member.callEndpoint('/jwt/fetch_api_key', 'POST', { token: jwt({ email: 'mel@e2e.example' }), include_profile: 'true' }));
    assert.equal(res.api_key, a.member.api_key);
    assert.equal(res.email, 'mel@e2e.example');
    assert.equal(res.user.user_id, a.member.user_id);
    assert.equal(res.user.profile_data, undefined);
    const plain = ok(await z.member.callEndpoint('/jwt/fetch_api_key', 'POST', { token: jwt({ email: 'mel@e2e.example' }) }));
    assert.deepEqual(Object.keys(plain).sort(), ['api_key', 'email', 'msg', 'result']);
    const forged = await z.member.callEndpoint('/jwt/fetch_api_key', 'POST', { token: jwt({ email: 'mel@e2e.example' }).slice(0, -2) + 'xx' });
    assert.equal(forged.result, 'error');
  });
});
