-- Who may move messages to another topic and to another channel: a group
-- setting's JSON; the empty anonymous group stands for the reference's
-- defaults (role:everyone, role:members).
ALTER TABLE realms ADD COLUMN can_move_messages_between_topics_group TEXT NOT NULL DEFAULT '{"direct_members":[],"direct_subgroups":[]}';
ALTER TABLE realms ADD COLUMN can_move_messages_between_channels_group TEXT NOT NULL DEFAULT '{"direct_members":[],"direct_subgroups":[]}';
