'use strict';
// Messages (send, fetch, get, edit, delete), matches_narrow, reports,
// reactions, edit typing and channel typing (SPEC.md 13, 15, 17, 19 and
// PROTOCOL.md C4, C5), with the message events arriving on registered
// queues, driven through zulip-js against a real chatd.

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { start, ok } = require('./lib/chatd');

const j = JSON.stringify;
let srv;
let z;
let a;
let general; // the ID of channel "general", which everyone but the guest is subscribed to

before(async () => {
  srv = await start({
    admin: { email: 'adam@e2e.example', name: 'Adam Admin', role: 'admin' },
    member: { email: 'mel@e2e.example', name: 'Mel Member' },
    other: { email: 'otto@e2e.example', name: 'Otto Other' },
    guest: { email: 'gus@e2e.example', name: 'Gus Guest', role: 'guest' },
  });
  z = srv.clients;
  a = srv.accounts;
  ok(await z.admin.users.me.subscriptions.add({
    subscriptions: j([{ name: 'general' }]),
    principals: j([a.admin.user_id, a.member.user_id, a.other.user_id]),
  }));
  general = await streamId(z.member, 'general');
});
after(() => srv && srv.stop());

// streamId finds a channel's ID in zulip.streams.retrieve (the server has
// no GET /get_stream_id, which zulip.streams.getStreamId calls).
async function streamId(client, name) {
  return ok(await client.streams.retrieve()).streams.find((s) => s.name === name).stream_id;
}

// send sends a message through zulip.messages.send and returns its ID.
async function send(client, params) {
  const res = ok(await client.messages.send(params));
  assert.ok(Number.isInteger(res.id), j(res));
  return res.id;
}

// register registers a queue through zulip.queues.register.
async function register(client, eventTypes, extra = {}) {
  return ok(await client.queues.register({ event_types: eventTypes, ...extra })).queue_id;
}

// drain reads every event of a queue without waiting.
async function drain(client, queueId) {
  return ok(await client.events.retrieve({ queue_id: queueId, last_event_id: -1, dont_block: 'true' })).events;
}

describe('messages', () => {
  test('send, retrieve, getById, update, deleteById through zulip.messages, with message events on a queue', async () => {
    const q = await register(z.other, ['message', 'update_message', 'delete_message'], {
      apply_markdown: 'true', client_capabilities: j({ bulk_message_deletion: true }),
    });

    // POST /messages: a channel message by name, and a direct message.
    const id = await send(z.member, { type: 'stream', to: 'general', topic: 'greetings', content: 'hello **world**' });
    const dm = await send(z.member, { type: 'direct', to: [a.other.user_id], content: 'psst' });
    assert.ok(dm > id);

    // GET /messages with a narrow (zulip-js encodes it as JSON).
    const fetched = ok(await z.other.messages.retrieve({
      anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: 'false',
      narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'greetings' }],
    }));
    assert.equal(fetched.found_newest, true);
    assert.deepEqual(fetched.messages.map((m) => [m.id, m.content, m.subject, m.display_recipient, m.stream_id, m.flags]),
      [[id, 'hello **world**', 'greetings', 'general', general, []]]);
    const m = fetched.messages[0];
    assert.deepEqual([m.sender_id, m.sender_email, m.sender_full_name, m.type, m.content_type],
      [a.member.user_id, a.member.email, 'Mel Member', 'stream', 'text/x-markdown']);

    // The direct message, fetched by ID.
    const byId = ok(await z.other.messages.retrieve({ message_ids: j([dm]) }));
    assert.deepEqual(byId.messages.map((x) => [x.id, x.type, x.display_recipient.map((r) => r.id).sort()]),
      [[dm, 'private', [a.member.user_id, a.other.user_id].sort()]]);

    // GET /messages/{id}. zulip-js puts message_id in the query string
    // too, where the server reports it as unused.
    const one = ok(await z.other.messages.getById({ message_id: id }));
    assert.equal(one.raw_content, 'hello **world**');
    assert.equal(one.message.content, '<p>hello <strong>world</strong></p>');
    assert.deepEqual(one.ignored_parameters_unsupported, ['message_id']);

    // PATCH /messages/{id}: only the sender may edit.
    const denied = await z.other.messages.update({ message_id: id, content: 'mine now' });
    assert.deepEqual([denied.result, denied.msg], ['error', "You don't have permission to edit this message"]);
    const edited = ok(await z.member.messages.update({ message_id: id, content: 'hello *again*' }));
    assert.deepEqual(edited.detached_uploads, []);
    const after = ok(await z.other.messages.getById({ message_id: id }));
    assert.equal(after.message.content, '<p>hello <em>again</em></p>');
    assert.ok(Number.isInteger(after.message.last_edit_timestamp));

    // DELETE /messages/{id}: someone else's message is out of reach for a
    // member; the sender may delete it.
    const notYours = await z.other.messages.deleteById({ message_id: id });
    assert.deepEqual([notYours.result, notYours.msg], ['error', "You don't have permission to delete this message"]);
    ok(await z.member.messages.deleteById({ message_id: id }));
    const gone = await z.other.messages.getById({ message_id: id });
    assert.deepEqual([gone.result, gone.msg], ['error', 'Invalid message(s)']);

    // The events, in order, on the queue registered before.
    const evs = await drain(z.other, q);
    assert.deepEqual(evs.map((e) => [e.type, e.message ? e.message.id : e.message_id || e.message_ids[0]]),
      [['message', id], ['message', dm], ['update_message', id], ['delete_message', id]]);
    const [sent, direct, update, del] = evs;
    assert.equal(sent.message.content, '<p>hello <strong>world</strong></p>');
    assert.deepEqual(sent.flags, []);
    assert.equal(sent.message.flags, undefined);
    assert.deepEqual(direct.message.display_recipient.map((r) => r.email).sort(), [a.member.email, a.other.email].sort());
    assert.deepEqual([update.user_id, update.orig_content, update.content, update.rendered_content, update.stream_id],
      [a.member.user_id, 'hello **world**', 'hello *again*', '<p>hello <em>again</em></p>', general]);
    assert.deepEqual([del.message_ids, del.message_type, del.stream_id, del.topic], [[id], 'stream', general, 'greetings']);
  });

  test('errors come back in the error envelope', async () => {
    assert.deepEqual(await z.member.messages.send({ type: 'stream', to: 'nowhere', topic: 't', content: 'x' }),
      { result: 'error', msg: "Channel 'nowhere' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'nowhere' });
    assert.deepEqual(await z.member.messages.send({ type: 'stream', to: 'general', topic: 't', content: '   ' }),
      { result: 'error', msg: 'Message must not be empty', code: 'BAD_REQUEST' });
    assert.deepEqual(await z.member.messages.retrieve({ num_before: 1 }),
      { result: 'error', msg: "Missing 'anchor' argument.", code: 'BAD_REQUEST' });
    // A guest who is not subscribed does not see the channel at all.
    assert.equal((await z.guest.messages.send({ type: 'stream', to: general, topic: 't', content: 'x' })).code,
      'STREAM_DOES_NOT_EXIST');
  });

  test('GET /messages/matches_narrow (SPEC 13)', async () => {
    const walrus = await send(z.member, { type: 'stream', to: 'general', topic: 'walrus', content: 'the walrus said' });
    const other = await send(z.member, { type: 'stream', to: 'general', topic: 'carpenter', content: 'the carpenter said' });
    // zulip-js has no call for it: the generic call with JSON parameters.
    const res = ok(await z.other.callEndpoint('/messages/matches_narrow', 'GET', {
      msg_ids: j([walrus, other]), narrow: j([{ operator: 'topic', operand: 'walrus' }]),
    }));
    assert.deepEqual(res.messages, { [walrus]: { match_content: '<p>the walrus said</p>', match_subject: 'walrus' } });
    const search = ok(await z.other.callEndpoint('/messages/matches_narrow', 'GET', {
      msg_ids: j([walrus, other]), narrow: j([['search', 'carpenter']]),
    }));
    assert.deepEqual(search.messages, {
      [other]: { match_content: '<p>the <span class="highlight">carpenter</span> said</p>', match_subject: '<span class="highlight">carpenter</span>' },
    });
    assert.deepEqual(await z.other.callEndpoint('/messages/matches_narrow', 'GET', { msg_ids: j([walrus]), narrow: j([['bogus', 'x']]) }),
      { result: 'error', msg: 'Invalid narrow operator: unknown operator bogus', code: 'BAD_NARROW', desc: 'unknown operator bogus' });
  });

  test('POST /messages/{id}/reactions and DELETE (SPEC 17) through zulip.reactions', async () => {
    const id = await send(z.member, { type: 'stream', to: 'general', topic: 'react', content: 'react to me' });
    const q = await register(z.member, ['reaction']);
    ok(await z.other.reactions.add({ message_id: id, emoji_name: 'octopus' }));
    // A vote with the code only takes the existing reaction's name.
    ok(await z.admin.reactions.add({ message_id: id, emoji_name: 'anything', emoji_code: '1f419', reaction_type: 'unicode_emoji' }));
    assert.deepEqual(await z.other.reactions.add({ message_id: id, emoji_name: 'octopus' }),
      { result: 'error', msg: 'Reaction already exists.', code: 'REACTION_ALREADY_EXISTS' });
    assert.deepEqual(await z.other.reactions.add({ message_id: id, emoji_name: 'no_such_emoji' }),
      { result: 'error', msg: "Emoji 'no_such_emoji' does not exist", code: 'BAD_REQUEST' });
    const got = ok(await z.member.messages.getById({ message_id: id }));
    assert.deepEqual(got.message.reactions, [
      { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: a.other.user_id },
      { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: a.admin.user_id },
    ]);
    ok(await z.other.reactions.remove({ message_id: id, emoji_name: 'octopus' }));
    // zulip.messages.deleteReactionById is the same route.
    ok(await z.admin.messages.deleteReactionById({ message_id: id, emoji_code: '1f419' }));
    assert.deepEqual(await z.admin.reactions.remove({ message_id: id, emoji_name: 'octopus' }),
      { result: 'error', msg: "Reaction doesn't exist.", code: 'REACTION_DOES_NOT_EXIST' });
    assert.deepEqual(ok(await z.member.messages.getById({ message_id: id })).message.reactions, []);

    const evs = await drain(z.member, q);
    assert.deepEqual(evs.map((e) => [e.type, e.op, e.user_id, e.message_id, e.emoji_name, e.emoji_code]), [
      ['reaction', 'add', a.other.user_id, id, 'octopus', '1f419'],
      ['reaction', 'add', a.admin.user_id, id, 'octopus', '1f419'],
      ['reaction', 'remove', a.other.user_id, id, 'octopus', '1f419'],
      ['reaction', 'remove', a.admin.user_id, id, 'octopus', '1f419'],
    ]);
  });

  test('POST /messages/{id}/report (SPEC 15) to the moderation channel', async () => {
    const id = await send(z.other, { type: 'stream', to: 'general', topic: 'rude', content: 'something **rude**' });
    const report = (client, params) => client.callEndpoint(`/messages/${id}/report`, 'POST', params);
    assert.deepEqual(await report(z.member, { report_type: 'spam' }),
      { result: 'error', msg: 'Message reporting is not enabled in this organization.', code: 'BAD_REQUEST' });

    // The administrators' private moderation channel, set with PATCH /realm.
    ok(await z.admin.users.me.subscriptions.add({ subscriptions: j([{ name: 'moderation' }]), invite_only: 'true' }));
    const moderation = await streamId(z.admin, 'moderation');
    const set = ok(await z.admin.callEndpoint('/realm', 'PATCH', { moderation_request_channel_id: moderation }));
    assert.equal(set.moderation_request_channel_id, moderation);

    assert.deepEqual(await report(z.member, { report_type: 'other' }),
      { result: 'error', msg: 'An explanation is required.', code: 'BAD_REQUEST' });
    assert.deepEqual(await report(z.member, { report_type: 'rude' }),
      { result: 'error', msg: 'Invalid report_type: Value error, Not in the list of possible values', code: 'BAD_REQUEST' });
    ok(await report(z.member, { report_type: 'harassment', description: 'not nice' }));

    const mod = ok(await z.admin.messages.retrieve({
      anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false',
      narrow: [{ operator: 'channel', operand: 'moderation' }],
    })).messages;
    assert.equal(mod.length, 1);
    assert.equal(mod[0].sender_full_name, 'Notification Bot');
    assert.equal(mod[0].subject, 'Otto Other moderation');
    const lines = mod[0].content.split('\n');
    assert.match(lines[0], new RegExp(`^@_\\*\\*Mel Member\\|${a.member.user_id}\\*\\* reported a message sent by ` +
      `@_\\*\\*Otto Other\\|${a.other.user_id}\\*\\* at <time:[^>]+>\\.$`));
    assert.deepEqual(lines.slice(1), ['```quote', '**Harassment**. not nice', '```', '',
      `\`\`\` spoiler Original message at #**general>rude@${id}**`, 'something **rude**', '```']);
    // Members cannot read the moderation channel.
    const hidden = await z.member.messages.retrieve({ anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'moderation' }] });
    assert.equal(hidden.code, 'BAD_NARROW');
  });

  test('POST /messages/{id}/typing (SPEC 19) and channel typing (POST /typing), with their events', async () => {
    const id = await send(z.member, { type: 'stream', to: 'general', topic: 'typing', content: 'edit me' });
    const q = await register(z.other, ['typing', 'typing_edit_message'], {
      client_capabilities: j({ stream_typing_notifications: true }),
    });
    ok(await z.member.callEndpoint(`/messages/${id}/typing`, 'POST', { op: 'start' }));
    assert.deepEqual(await z.other.callEndpoint(`/messages/${id}/typing`, 'POST', { op: 'start' }),
      { result: 'error', msg: "You don't have permission to edit this message", code: 'BAD_REQUEST' });
    assert.deepEqual(await z.member.callEndpoint(`/messages/${id}/typing`, 'POST', { op: 'go' }),
      { result: 'error', msg: 'Invalid op', code: 'BAD_REQUEST' });
    ok(await z.member.callEndpoint(`/messages/${id}/typing`, 'POST', { op: 'stop' }));
    // zulip.typing.send reads params.to.length, so it cannot send the
    // channel form (which has no `to`); the generic call does.
    ok(await z.member.callEndpoint('/typing', 'POST', { type: 'channel', op: 'start', stream_id: general, topic: 'typing' }));

    const evs = await drain(z.other, q);
    assert.deepEqual(evs.map(({ id: _, ...e }) => e), [
      { type: 'typing_edit_message', op: 'start', sender_id: a.member.user_id, message_id: id,
        recipient: { type: 'channel', channel_id: general, topic: 'typing' } },
      { type: 'typing_edit_message', op: 'stop', sender_id: a.member.user_id, message_id: id,
        recipient: { type: 'channel', channel_id: general, topic: 'typing' } },
      { type: 'typing', op: 'start', message_type: 'stream', sender: { user_id: a.member.user_id, email: a.member.email },
        stream_id: general, topic: 'typing' },
    ]);
  });
  test('moving a topic, resolving it and reading the history (PATCH /messages/{id}, GET /messages/{id}/history)', async () => {
    ok(await z.admin.users.me.subscriptions.add({
      subscriptions: j([{ name: 'archive' }]), principals: j([a.admin.user_id, a.member.user_id, a.other.user_id]),
    }));
    const archive = await streamId(z.member, 'archive');
    const first = await send(z.member, { type: 'stream', to: 'general', topic: 'plans', content: 'draft one' });
    const second = await send(z.member, { type: 'stream', to: 'general', topic: 'plans', content: 'draft two' });
    // zulip.messages.update sends the topic and propagate mode as given.
    ok(await z.member.messages.update({ message_id: first, topic: 'roadmap', propagate_mode: 'change_all' }));
    ok(await z.member.messages.update({ message_id: first, topic: '✔ roadmap', propagate_mode: 'change_all' }));
    ok(await z.admin.messages.update({ message_id: second, stream_id: archive, propagate_mode: 'change_all',
      send_notification_to_old_thread: 'true' }));
    const moved = ok(await z.member.messages.getById({ message_id: first }));
    assert.deepEqual([moved.message.subject, moved.message.stream_id], ['✔ roadmap', archive]);
    const notices = ok(await z.member.messages.retrieve({
      anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: false,
      narrow: [{ operator: 'channel', operand: 'archive' }, { operator: 'topic', operand: '✔ roadmap' }],
    })).messages.filter((m) => m.sender_email === 'notification-bot@zulip.com').map((m) => m.content);
    assert.deepEqual(notices, [
      `This topic was moved here from #**general>plans** by @_**Mel Member|${a.member.user_id}**.`,
      `@_**Mel Member|${a.member.user_id}** has marked this topic as resolved.`,
      `This topic was moved here from #**general>✔ roadmap** by @_**Adam Admin|${a.admin.user_id}**.`,
    ]);
    const history = ok(await z.other.callEndpoint(`/messages/${first}/history`, 'GET', {})).message_history;
    assert.deepEqual(history.map((h) => [h.topic, h.prev_topic, h.stream, h.prev_stream]), [
      ['plans', undefined, undefined, undefined],
      ['roadmap', 'plans', undefined, undefined],
      ['✔ roadmap', 'roadmap', undefined, undefined],
      ['✔ roadmap', undefined, archive, general],
    ]);
    assert.deepEqual(await z.other.messages.update({ message_id: first, stream_id: 99999 }),
      { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
  });
});
