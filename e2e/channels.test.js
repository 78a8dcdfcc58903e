'use strict';
// Channels, subscriptions, topics and folders (SPEC.md 1-4, 12, 14) and the
// supporting channel routes, driven through zulip-js against a real chatd.

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { start, ok } = require('./lib/chatd');

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

async function streamId(client, name) {
  const res = ok(await client.streams.retrieve());
  return res.streams.find((s) => s.name === name).stream_id;
}

describe('channels', () => {
  test('POST /users/me/subscriptions creates and subscribes (SPEC 1) through zulip.users.me.subscriptions.add', async () => {
    const res = ok(await z.member.users.me.subscriptions.add({
      subscriptions: j([{ name: 'design', description: 'All things *design*' }]),
      principals: j([a.member.user_id, a.other.user_id]),
      invite_only: 'false',
      history_public_to_subscribers: 'true',
    }));
    assert.deepEqual(res.subscribed, { [a.member.user_id]: ['design'], [a.other.user_id]: ['design'] });
    assert.deepEqual(res.already_subscribed, {});
    const again = ok(await z.member.users.me.subscriptions.add({ subscriptions: j([{ name: 'design' }]) }));
    assert.deepEqual(again.already_subscribed, { [a.member.user_id]: ['design'] });
    const missing = await z.member.users.me.subscriptions.add({ subscriptions: j([{ name: 'design' }]), principals: j([999]) });
    assert.equal(missing.result, 'error');
    assert.equal(missing.code, 'BAD_REQUEST');
    // A private channel the member may not add to, with authorization errors not fatal.
    ok(await z.admin.users.me.subscriptions.add({ subscriptions: j([{ name: 'secret' }]), invite_only: 'true' }));
    const denied = ok(await z.member.users.me.subscriptions.add({ subscriptions: j([{ name: 'secret' }]), authorization_errors_fatal: 'false' }));
    assert.deepEqual(denied.unauthorized, ['secret']);
  });

  test('GET /streams, /streams/{id} and /users/me/subscriptions through zulip.streams', async () => {
    const streams = ok(await z.member.streams.retrieve());
    assert.deepEqual(streams.streams.map((s) => s.name), ['design']);
    const design = streams.streams[0];
    // Channel descriptions are not run through Markdown yet (README), so
    // only the paragraph is checked.
    assert.match(design.rendered_description, /^<p>All things .*design.*<\/p>$/);
    assert.equal(design.invite_only, false);
    const one = ok(await z.member.callEndpoint(`/streams/${design.stream_id}`, 'GET'));
    assert.equal(one.stream.name, 'design');
    const subs = ok(await z.member.streams.subscriptions.retrieve({ include_subscribers: 'true' }));
    assert.deepEqual(subs.subscriptions.map((s) => [s.name, s.subscribers.sort()]), [['design', [a.member.user_id, a.other.user_id].sort()]]);
    assert.match(subs.subscriptions[0].color, /^#[0-9a-f]{6}$/);
  });

  test('subscription settings: POST properties and PATCH one (SPEC 2, 3)', async () => {
    const id = await streamId(z.member, 'design');
    ok(await z.member.callEndpoint('/users/me/subscriptions/properties', 'POST', {
      subscription_data: [{ stream_id: id, property: 'color', value: '#abcdef' }, { stream_id: id, property: 'pin_to_top', value: true }],
    }));
    ok(await z.member.callEndpoint(`/users/me/subscriptions/${id}`, 'PATCH', { property: 'is_muted', value: 'true' }));
    const sub = ok(await z.member.streams.subscriptions.retrieve()).subscriptions[0];
    assert.equal(sub.color, '#abcdef');
    assert.equal(sub.pin_to_top, true);
    assert.equal(sub.is_muted, true);
    assert.equal(sub.in_home_view, false);
    const bad = await z.member.callEndpoint(`/users/me/subscriptions/${id}`, 'PATCH', { property: 'color', value: 'blue' });
    assert.equal(bad.result, 'error');
  });

  test('PATCH /users/me/subscriptions/muted_topics (SPEC 4) and POST /user_topics', async () => {
    const id = await streamId(z.member, 'design');
    const reg = ok(await z.member.queues.register({ event_types: ['user_topic'] }));
    ok(await z.member.callEndpoint('/users/me/subscriptions/muted_topics', 'PATCH', { stream_id: id, topic: 'logos', op: 'add' }));
    ok(await z.member.callEndpoint('/users/me/subscriptions/muted_topics', 'PATCH', { stream: 'design', topic: 'logos', op: 'remove' }));
    ok(await z.member.callEndpoint('/users/me/subscriptions/muted_topics', 'PATCH', { stream_id: id, topic: 'never muted', op: 'remove' }));
    ok(await z.member.callEndpoint('/user_topics', 'POST', { stream_id: id, topic: 'fonts', visibility_policy: 3 }));
    const evs = ok(await z.member.events.retrieve({ queue_id: reg.queue_id, last_event_id: -1, dont_block: 'true' }));
    // Unmuting a topic that was not muted changes nothing, so it sends no event.
    assert.deepEqual(evs.events.map((e) => [e.type, e.stream_id, e.topic_name, e.visibility_policy]),
      [['user_topic', id, 'logos', 1], ['user_topic', id, 'logos', 0], ['user_topic', id, 'fonts', 3]]);
  });

  test('POST /streams/{id}/delete_topic (SPEC 14, administrators)', async () => {
    const id = await streamId(z.member, 'design');
    // Messages in the topic and beside it, through zulip.messages.send.
    for (const [topic, content] of [['logos', 'first logo'], ['logos', 'second logo'], ['fonts', 'a font']]) {
      ok(await z.member.messages.send({ type: 'stream', to: id, topic, content }));
    }
    const topics = async () => ok(await z.member.messages.retrieve({
      anchor: 'newest', num_before: 100, num_after: 0, apply_markdown: 'false',
      narrow: [{ operator: 'channel', operand: id }],
    })).messages.filter((m) => m.sender_id === a.member.user_id).map((m) => [m.subject, m.content]);
    assert.deepEqual(await topics(), [['logos', 'first logo'], ['logos', 'second logo'], ['fonts', 'a font']]);
    assert.deepEqual(ok(await z.admin.callEndpoint(`/streams/${id}/delete_topic`, 'POST', { topic_name: 'logos' })).complete, true);
    assert.deepEqual(await topics(), [['fonts', 'a font']]);
    assert.deepEqual(await z.member.callEndpoint(`/streams/${id}/delete_topic`, 'POST', { topic_name: 'logos' }),
      { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  });

  test('channel folders: create, list, PATCH (SPEC 12)', async () => {
    const created = ok(await z.admin.callEndpoint('/channel_folders/create', 'POST', { name: 'Frontend', description: 'UI work' }));
    ok(await z.admin.callEndpoint(`/channel_folders/${created.channel_folder_id}`, 'PATCH', { name: 'Web', is_archived: 'true' }));
    const visible = ok(await z.member.callEndpoint('/channel_folders', 'GET'));
    assert.deepEqual(visible.channel_folders, []);
    const all = ok(await z.member.callEndpoint('/channel_folders', 'GET', { include_archived: 'true' }));
    assert.deepEqual(all.channel_folders.map((f) => [f.id, f.name, f.description, f.is_archived]), [[created.channel_folder_id, 'Web', 'UI work', true]]);
    assert.deepEqual(await z.admin.callEndpoint('/channel_folders/999', 'PATCH', { name: 'x' }),
      { result: 'error', msg: 'Invalid channel folder ID', code: 'BAD_REQUEST' });
    assert.equal((await z.member.callEndpoint(`/channel_folders/${created.channel_folder_id}`, 'PATCH', { is_archived: 'false' })).code, 'UNAUTHORIZED_PRINCIPAL');
  });

  test('GET /user_groups', async () => {
    const res = ok(await z.member.callEndpoint('/user_groups', 'GET'));
    const members = res.user_groups.find((g) => g.name === 'role:members');
    assert.ok(members.is_system_group);
  });

  test('DELETE /users/me/subscriptions through zulip.users.me.subscriptions.remove', async () => {
    const res = ok(await z.other.users.me.subscriptions.remove({ subscriptions: j(['design']) }));
    assert.deepEqual(res, { result: 'success', msg: '', removed: ['design'], not_removed: [] });
    const missing = await z.other.users.me.subscriptions.remove({ subscriptions: j(['nowhere']) });
    assert.deepEqual(missing, { result: 'error', msg: 'Channel(s) (nowhere) do not exist', code: 'BAD_REQUEST' });
  });
});
