'use strict';
// Administration through the API (issue 20): changing and archiving
// channels, user groups, bots with their bot storage, custom profile fields,
// alert words and muted users, driven through zulip-js (its named calls
// where it has them, callEndpoint elsewhere) against a real chatd.

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { start, ok } = require('./lib/chatd');

const j = JSON.stringify;
let srv;
let z;
let a;

before(async () => {
  srv = await start({
    admin: { email: 'ada@e2e.example', name: 'Ada Admin', role: 'admin' },
    member: { email: 'max@e2e.example', name: 'Max Member' },
  });
  z = srv.clients;
  a = srv.accounts;
});
after(() => srv && srv.stop());

describe('administration', () => {
  test('a channel is found by name, renamed, made private and archived (streams.getStreamId, streams.deleteById)', async () => {
    ok(await z.member.users.me.subscriptions.add({ subscriptions: j([{ name: 'plans' }]) }));
    const { stream_id: id } = ok(await z.member.streams.getStreamId('PLANS'));
    // The member created the channel and so administers it.
    ok(await z.member.callEndpoint(`/streams/${id}`, 'PATCH', { new_name: 'roadmap', description: 'What *next*', is_private: 'true' }));
    const one = ok(await z.member.callEndpoint(`/streams/${id}`, 'GET')).stream;
    assert.equal(one.name, 'roadmap');
    assert.equal(one.rendered_description, '<p>What <em>next</em></p>');
    assert.equal(one.invite_only, true);
    assert.equal(one.history_public_to_subscribers, false);
    const denied = await z.admin.callEndpoint(`/streams/${id}`, 'PATCH', { is_private: 'false' });
    assert.equal(denied.msg, 'Channel content access is required.');
    const notices = ok(await z.member.messages.retrieve({ anchor: 'newest', num_before: 5, num_after: 0,
      narrow: [{ operator: 'channel', operand: 'roadmap' }, { operator: 'topic', operand: 'channel events' }] }));
    assert.match(notices.messages.at(-2).content, /renamed channel <strong>plans<\/strong> to <strong>roadmap<\/strong>/);
    ok(await z.member.streams.deleteById({ stream_id: id }));
    assert.equal(ok(await z.member.callEndpoint(`/streams/${id}`, 'GET')).stream.is_archived, true);
    const closed = await z.member.messages.send({ type: 'stream', to: id, topic: 't', content: 'hello?' });
    assert.equal(closed.msg, "Not authorized to send to channel 'roadmap'");
    assert.equal(ok(await z.member.callEndpoint(`/streams/${id}/email_address`, 'GET')).email, '');
  });

  test('a user group is created, filled, renamed and deactivated', async () => {
    const { group_id: id } = ok(await z.member.callEndpoint('/user_groups/create', 'POST', {
      name: 'design', description: 'Pixels', members: j([a.member.user_id]) }));
    ok(await z.member.callEndpoint(`/user_groups/${id}/members`, 'POST', { add: j([a.admin.user_id]) }));
    assert.deepEqual(ok(await z.member.callEndpoint(`/user_groups/${id}/members`, 'GET')).members,
      [a.admin.user_id, a.member.user_id].sort((x, y) => x - y));
    assert.equal(ok(await z.admin.callEndpoint(`/user_groups/${id}/members/${a.member.user_id}`, 'GET')).is_user_group_member, true);
    const notManager = await z.owner.callEndpoint(`/user_groups/${id}`, 'PATCH', { name: 'art' });
    assert.equal(notManager.result, 'success'); // owners administer every group
    ok(await z.member.callEndpoint(`/user_groups/${id}/deactivate`, 'POST'));
    const groups = ok(await z.member.callEndpoint('/user_groups', 'GET', { include_deactivated_groups: 'true' })).user_groups;
    const art = groups.find((g) => g.id === id);
    assert.equal(art.name, 'art');
    assert.equal(art.deactivated, true);
    assert.deepEqual(art.can_manage_group, { direct_members: [a.member.user_id], direct_subgroups: [] });
  });

  test('a bot is created, keeps its state in bot storage, is rekeyed and deactivated', async () => {
    const bot = ok(await z.member.callEndpoint('/bots', 'POST', { full_name: 'Helper', short_name: 'helper' }));
    const listed = ok(await z.member.callEndpoint('/bots', 'GET')).bots;
    assert.deepEqual(listed.map((b) => [b.user_id, b.full_name, b.bot_type]), [[bot.user_id, 'Helper', 1]]);
    assert.equal(listed.find((b) => b.user_id === bot.user_id).api_key, bot.api_key);
    const username = listed.find((b) => b.user_id === bot.user_id).username;
    const asBot = await srv.client({ username, apiKey: bot.api_key });
    ok(await asBot.callEndpoint('/bot_storage', 'PUT', { storage: j({ counter: '1' }) }));
    assert.deepEqual(ok(await asBot.callEndpoint('/bot_storage', 'GET', { keys: j(['counter']) })).storage, { counter: '1' });
    const { api_key: key } = ok(await z.member.callEndpoint(`/bots/${bot.user_id}/api_key/regenerate`, 'POST'));
    assert.notEqual(key, bot.api_key);
    assert.equal((await asBot.callEndpoint('/bot_storage', 'GET')).result, 'error');
    const again = await srv.client({ username, apiKey: key });
    assert.deepEqual(ok(await again.callEndpoint('/bot_storage', 'GET')).storage, { counter: '1' });
    ok(await z.member.callEndpoint(`/bots/${bot.user_id}`, 'PATCH', { full_name: 'Assistant' }));
    ok(await z.member.callEndpoint(`/bots/${bot.user_id}`, 'DELETE'));
    assert.deepEqual(ok(await z.member.callEndpoint('/bots', 'GET')).bots.filter((b) => b.user_id === bot.user_id), []);
  });

  test('custom profile fields are changed, reordered and deleted', async () => {
    const { id: phone } = ok(await z.admin.callEndpoint('/realm/profile_fields', 'POST', { name: 'Phone', field_type: '1' }));
    const { id: team } = ok(await z.admin.callEndpoint('/realm/profile_fields', 'POST', { name: 'Team', field_type: '1' }));
    ok(await z.admin.callEndpoint(`/realm/profile_fields/${phone}`, 'PATCH', { name: 'Mobile', hint: 'With country code' }));
    ok(await z.admin.callEndpoint('/realm/profile_fields', 'PATCH', { order: j([team, phone]) }));
    let fields = ok(await z.member.callEndpoint('/realm/profile_fields', 'GET')).custom_fields;
    assert.deepEqual(fields.map((f) => [f.name, f.hint]), [['Team', ''], ['Mobile', 'With country code']]);
    ok(await z.admin.callEndpoint(`/realm/profile_fields/${phone}`, 'DELETE'));
    fields = ok(await z.member.callEndpoint('/realm/profile_fields', 'GET')).custom_fields;
    assert.deepEqual(fields.map((f) => f.name), ['Team']);
  });

  test('a custom emoji is uploaded, listed (emojis.retrieve), served, reacted with and deactivated', async () => {
    // A 1×1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==', 'base64');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'emoji-')), 'party.png');
    fs.writeFileSync(file, png);
    ok(await z.member.callEndpoint('/realm/emoji/party', 'POST', { file: fs.createReadStream(file) }));
    const emoji = Object.values(ok(await z.member.emojis.retrieve()).emoji).find((e) => e.name === 'party');
    assert.equal(emoji.author_id, a.member.user_id);
    const image = await fetch(`${srv.base}${emoji.source_url}`);
    assert.equal(image.status, 200);
    assert.deepEqual(Buffer.from(await image.arrayBuffer()), png);
    ok(await z.member.users.me.subscriptions.add({ subscriptions: j([{ name: 'fun' }]) }));
    const { id } = ok(await z.member.messages.send({ type: 'stream', to: 'fun', topic: 't', content: ':party:' }));
    ok(await z.member.reactions.add({ message_id: id, emoji_name: 'party' }));
    const denied = await z.admin.callEndpoint('/realm/emoji/nope', 'DELETE');
    assert.equal(denied.msg, "Emoji 'nope' does not exist");
    ok(await z.member.callEndpoint('/realm/emoji/party', 'DELETE'));
    const gone = await z.member.reactions.add({ message_id: id, emoji_name: 'party' });
    assert.equal(gone.result, 'error');
  });

  test('alert words flag messages; a muted sender\'s messages arrive read', async () => {
    ok(await z.member.users.me.subscriptions.add({ subscriptions: j([{ name: 'ops' }]), principals: j([a.member.user_id, a.admin.user_id]) }));
    assert.deepEqual(ok(await z.member.callEndpoint('/users/me/alert_words', 'POST', { alert_words: j(['deploy']) })).alert_words, ['deploy']);
    const { id: hit } = ok(await z.admin.messages.send({ type: 'stream', to: 'ops', topic: 't', content: 'Time to DEPLOY' }));
    ok(await z.member.callEndpoint(`/users/me/muted_users/${a.admin.user_id}`, 'POST'));
    const { id: muted } = ok(await z.admin.messages.send({ type: 'stream', to: 'ops', topic: 't', content: 'quiet' }));
    const got = ok(await z.member.messages.retrieve({ anchor: hit, num_before: 0, num_after: 5,
      narrow: [{ operator: 'channel', operand: 'ops' }] })).messages;
    assert.deepEqual(got.map((m) => [m.id, m.flags]), [[hit, ['has_alert_word']], [muted, ['read']]]);
    ok(await z.member.callEndpoint(`/users/me/muted_users/${a.admin.user_id}`, 'DELETE'));
  });
});
