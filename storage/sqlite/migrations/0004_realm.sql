-- Organization administration: the settings of PATCH /realm, linkifiers
-- and allowed email domains. Defaults are those of a new organization
-- (chat.DefaultRealmSettings), so existing organizations get them too.

ALTER TABLE realms ADD COLUMN emails_restricted_to_domains        INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN disallow_disposable_email_addresses INTEGER NOT NULL DEFAULT 1;
ALTER TABLE realms ADD COLUMN allow_message_editing               INTEGER NOT NULL DEFAULT 1;
-- Time limits in seconds; 0 means no limit.
ALTER TABLE realms ADD COLUMN message_content_edit_limit_seconds   INTEGER NOT NULL DEFAULT 600;
ALTER TABLE realms ADD COLUMN message_content_delete_limit_seconds INTEGER NOT NULL DEFAULT 600;
ALTER TABLE realms ADD COLUMN topics_policy                       TEXT    NOT NULL DEFAULT 'allow_empty_topic';
ALTER TABLE realms ADD COLUMN default_language                    TEXT    NOT NULL DEFAULT 'en';
ALTER TABLE realms ADD COLUMN video_chat_provider                 INTEGER NOT NULL DEFAULT 1;
ALTER TABLE realms ADD COLUMN enable_spectator_access             INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN waiting_period_threshold            INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN invite_required                     INTEGER NOT NULL DEFAULT 1;
ALTER TABLE realms ADD COLUMN send_channel_events_messages        INTEGER NOT NULL DEFAULT 1;

CREATE TABLE linkifiers (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id         INTEGER NOT NULL REFERENCES realms (id),
	pattern          TEXT    NOT NULL,
	url_template     TEXT    NOT NULL,
	-- NULL when the linkifier has none.
	example_input    TEXT,
	reverse_template TEXT,
	-- A JSON array of strings.
	alternative_url_templates TEXT NOT NULL,
	sort_order       INTEGER NOT NULL,
	UNIQUE (realm_id, pattern)
) STRICT;

CREATE INDEX linkifiers_realm_order ON linkifiers (realm_id, sort_order);

CREATE TABLE realm_domains (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id         INTEGER NOT NULL REFERENCES realms (id),
	domain           TEXT    NOT NULL,
	allow_subdomains INTEGER NOT NULL,
	UNIQUE (realm_id, domain)
) STRICT;
