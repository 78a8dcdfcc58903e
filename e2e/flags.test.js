'use strict';
// Personal message flags, unread state and topics (issue 18): the flags
// through zulip.messages.flags.add/remove, the unread and starred state of
// POST /register through zulip.queues.register, the mark-as-read endpoints
// and the topics of a channel through zulip.streams.topics.retrieve, with
// update_message_flags events on the user's own queue only, driven through
// zulip-js against a real chatd.

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { start, ok } = require('./lib/chatd');

const j = JSON.stringify;
let srv;
let z;
let a;
let news; // the ID of channel "news", which the admin and the member are subscribed to

before(async () => {
  srv = await start({
    admin: { email: 'adam@e2e.example', name: 'Adam Admin', role: 'admin' },
    member: { email: 'mel@e2e.example', name: 'Mel Member' },
    other: { email: 'otto@e2e.example', name: 'Otto Other' },
  });
  z = srv.clients;
  a = srv.accounts;
  ok(await z.admin.users.me.subscriptions.add({
    subscriptions: j([{ name: 'news' }]),
    principals: j([a.admin.user_id, a.member.user_id]),
  }));
  news = ok(await z.member.streams.retrieve()).streams.find((s) => s.name === 'news').stream_id;
});
after(() => srv && srv.stop());

async function send(client, params) {
  return ok(await client.messages.send(params)).id;
}

async function register(client, eventTypes, extra = {}) {
  return ok(await client.queues.register({ event_types: eventTypes, ...extra }));
}

async function drain(client, queueId) {
  return ok(await client.events.retrieve({ queue_id: queueId, last_event_id: -1, dont_block: 'true' })).events;
}

// unread is the member's unread state from a fresh queue.
async function unread() {
  const st = await register(z.member, ['message', 'update_message_flags']);
  return st.unread_msgs;
}

describe('message flags and unread state', () => {
  test('flags.add/remove read and starred, events on the own queue only, unread_msgs and starred_messages in register', async () => {
    const m1 = await send(z.admin, { type: 'stream', to: 'news', topic: 'flags', content: 'first' });
    const m2 = await send(z.admin, { type: 'stream', to: 'news', topic: 'flags', content: 'second' });
    const dm = await send(z.admin, { type: 'private', to: j([a.member.user_id]), content: 'psst' });

    let st = await unread();
    assert.deepEqual(st.streams.filter((s) => s.stream_id === news && s.topic === 'flags'),
      [{ stream_id: news, topic: 'flags', unread_message_ids: [m1, m2] }]);
    assert.deepEqual(st.pms.filter((p) => p.unread_message_ids.includes(dm)).map((p) => p.unread_message_ids), [[dm]]);
    assert.equal(st.old_unreads_missing, false);
    const before = st.count;

    const mine = (await register(z.member, ['update_message_flags'])).queue_id;
    const theirs = (await register(z.admin, ['update_message_flags'])).queue_id;

    assert.deepEqual(ok(await z.member.messages.flags.add({ messages: [m1, dm], flag: 'read' })).messages, [m1, dm]);
    st = await unread();
    assert.equal(st.count, before - 2);
    assert.deepEqual(st.streams.filter((s) => s.stream_id === news && s.topic === 'flags')[0].unread_message_ids, [m2]);

    ok(await z.member.messages.flags.add({ messages: [m2], flag: 'starred' }));
    const starred = await register(z.member, ['message', 'starred_messages']);
    assert.deepEqual(starred.starred_messages, [m2]);
    ok(await z.member.messages.flags.remove({ messages: [m2], flag: 'starred' }));
    assert.deepEqual((await register(z.member, ['starred_messages'])).starred_messages, []);

    ok(await z.member.messages.flags.remove({ messages: [m1], flag: 'read' }));
    const events = await drain(z.member, mine);
    assert.deepEqual(events.map((e) => [e.type, e.op, e.flag, e.messages, e.all]), [
      ['update_message_flags', 'add', 'read', [m1, dm], false],
      ['update_message_flags', 'add', 'starred', [m2], false],
      ['update_message_flags', 'remove', 'starred', [m2], false],
      ['update_message_flags', 'remove', 'read', [m1], false],
    ]);
    // Restoring unread says where the message lives.
    assert.deepEqual(events[3].message_details[String(m1)],
      { type: 'stream', stream_id: news, topic: 'flags', mentioned: false, unmuted_stream_msg: true });
    assert.deepEqual(await drain(z.admin, theirs), []);
  });

  test('flags refused: read-only flag, unknown flag, unknown operation, unreadable message', async () => {
    const m = await send(z.admin, { type: 'stream', to: 'news', topic: 'refusals', content: 'x' });
    const err = async (res, msg) => {
      assert.equal(res.result, 'error', j(res));
      assert.equal(res.msg, msg);
    };
    await err(await z.member.messages.flags.add({ messages: [m], flag: 'mentioned' }), "Flag not editable: 'mentioned'");
    await err(await z.member.messages.flags.add({ messages: [m], flag: 'shiny' }), "Invalid flag: 'shiny'");
    await err(await z.member.callEndpoint('/messages/flags', 'POST', { messages: j([m]), flag: 'read', op: 'toggle' }),
      "Invalid message flag operation: 'toggle'");
    const secret = await send(z.admin, { type: 'private', to: j([a.member.user_id]), content: 'not for otto' });
    await err(await z.other.messages.flags.add({ messages: [secret], flag: 'starred' }), 'Invalid message(s)');
  });

  test('starring a public channel message never received (historical)', async () => {
    const m = await send(z.admin, { type: 'stream', to: 'news', topic: 'history', content: 'for the record' });
    ok(await z.other.messages.flags.add({ messages: [m], flag: 'starred' }));
    assert.deepEqual((await register(z.other, ['starred_messages'])).starred_messages, [m]);
    const got = ok(await z.other.messages.getById({ message_id: m }));
    assert.deepEqual([...got.message.flags].sort(), ['historical', 'read', 'starred']);
  });

  test('mark_topic_as_read, mark_stream_as_read and mark_all_as_read', async () => {
    const t1 = await send(z.admin, { type: 'stream', to: 'news', topic: 'mark a', content: '1' });
    const t2 = await send(z.admin, { type: 'stream', to: 'news', topic: 'mark b', content: '2' });
    const dm = await send(z.admin, { type: 'private', to: j([a.member.user_id]), content: '3' });
    const topicsOf = (st) => st.streams.filter((s) => s.stream_id === news).map((s) => s.topic);

    ok(await z.member.callEndpoint('/mark_topic_as_read', 'POST', { stream_id: news, topic_name: 'mark a' }));
    let st = await unread();
    assert.ok(!topicsOf(st).includes('mark a'), j(st));
    assert.ok(topicsOf(st).includes('mark b'), j(st));

    ok(await z.member.callEndpoint('/mark_stream_as_read', 'POST', { stream_id: news }));
    st = await unread();
    assert.deepEqual(topicsOf(st), []);
    assert.ok(st.pms.some((p) => p.unread_message_ids.includes(dm)), j(st));

    const all = ok(await z.member.callEndpoint('/mark_all_as_read', 'POST', {}));
    assert.equal(all.complete, true);
    st = await unread();
    assert.deepEqual([st.count, st.streams, st.pms, st.huddles, st.mentions], [0, [], [], [], []]);
    const fetched = ok(await z.member.messages.retrieve({ anchor: 'first_unread', num_before: 0, num_after: 1, narrow: [] }));
    assert.ok(!fetched.messages.some((m) => [t1, t2, dm].includes(m.id) && !m.flags.includes('read')), j(fetched));
  });
});

describe('topics', () => {
  test('streams.topics.retrieve names each topic with its newest message, newest first', async () => {
    const ch = 'topical';
    ok(await z.admin.users.me.subscriptions.add({ subscriptions: j([{ name: ch }]), principals: j([a.admin.user_id, a.member.user_id]) }));
    const id = ok(await z.member.streams.retrieve()).streams.find((s) => s.name === ch).stream_id;
    await send(z.admin, { type: 'stream', to: ch, topic: 'old', content: '1' });
    const newest = await send(z.admin, { type: 'stream', to: ch, topic: 'new', content: '2' });
    const oldMax = await send(z.admin, { type: 'stream', to: ch, topic: 'old', content: '3' });
    const newMax = await send(z.admin, { type: 'stream', to: ch, topic: 'newest', content: '4' });
    assert.ok(newest < oldMax);
    // Creating the channel announced it in its own "channel events" topic.
    const announced = ok(await z.member.messages.retrieve({ anchor: 'oldest', num_before: 0, num_after: 1,
      narrow: [{ operator: 'channel', operand: id }, { operator: 'topic', operand: 'channel events' }] })).messages[0].id;
    const res = ok(await z.member.streams.topics.retrieve({ stream_id: id }));
    assert.deepEqual(res.topics, [{ name: 'newest', max_id: newMax }, { name: 'old', max_id: oldMax },
      { name: 'new', max_id: newest }, { name: 'channel events', max_id: announced }]);

    const unknown = await z.member.streams.topics.retrieve({ stream_id: 999999 });
    assert.deepEqual([unknown.result, unknown.msg, unknown.code], ['error', 'Invalid channel ID', 'BAD_REQUEST']);
  });
});

describe('flags on a narrow', () => {
  test('POST /messages/flags/narrow marks a topic read from first_unread, then reports an empty range', async () => {
    const ids = [];
    for (const c of ['1', '2', '3']) ids.push(await send(z.admin, { type: 'stream', to: 'news', topic: 'ranged', content: c }));
    const narrow = j([{ operator: 'channel', operand: news }, { operator: 'topic', operand: 'ranged' }]);
    const params = { anchor: 'first_unread', num_before: 0, num_after: 1000, narrow, op: 'add', flag: 'read' };
    const res = ok(await z.member.callEndpoint('/messages/flags/narrow', 'POST', params));
    assert.deepEqual([res.processed_count, res.updated_count, res.first_processed_id, res.last_processed_id, res.found_oldest, res.found_newest],
      [3, 3, ids[0], ids[2], false, true]);
    const again = ok(await z.member.callEndpoint('/messages/flags/narrow', 'POST', params));
    assert.deepEqual([again.processed_count, again.updated_count, again.first_processed_id, again.last_processed_id],
      [0, 0, null, null]);
    const st = await unread();
    assert.deepEqual(st.streams.filter((s) => s.topic === 'ranged'), []);
  });
});

describe('presence', () => {
  test('POST /users/me/presence, GET /realm/presence and /users/{id}/presence, presence in register and as events (zulip-js has no named call)', async () => {
    const queue = await register(z.admin, ['presence']);
    const mine = ok(await z.member.callEndpoint('/users/me/presence', 'POST', { status: 'active', new_user_input: 'true', slim_presence: 'true' }));
    assert.ok(typeof mine.presence_last_update_id === 'number', j(mine));
    assert.ok(mine.presences[a.member.user_id], j(mine));
    const realm = ok(await z.admin.callEndpoint('/realm/presence', 'GET'));
    const entry = realm.presences[a.member.email];
    assert.ok(entry && entry.aggregated.status === 'active', j(realm));
    const one = ok(await z.admin.callEndpoint(`/users/${a.member.user_id}/presence`, 'GET'));
    assert.equal(one.presence.aggregated.status, 'active');
    const st = await register(z.admin, ['presence'], { fetch_event_types: j(['presence']), slim_presence: 'true' });
    assert.ok(st.presences[a.member.user_id], j(st.presences));
    assert.equal(st.server_presence_ping_interval_seconds, 60);
    const events = ok(await z.admin.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1, dont_block: 'true' })).events;
    assert.ok(events.some((e) => e.type === 'presence' && e.user_id === a.member.user_id), j(events));
    // With presence_enabled off, the member is not shown online.
    ok(await z.member.callEndpoint('/settings', 'PATCH', { presence_enabled: 'false' }));
    const hidden = ok(await z.admin.callEndpoint('/realm/presence', 'GET'));
    assert.ok(!hidden.presences[a.member.email] || hidden.presences[a.member.email].aggregated.status !== 'active', j(hidden));
  });
});
