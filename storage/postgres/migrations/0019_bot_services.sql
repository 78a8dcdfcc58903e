-- Where outgoing-webhook bots receive the messages that trigger them.
CREATE TABLE bot_services (
	bot_id      BIGINT PRIMARY KEY REFERENCES users (id),
	realm_id    BIGINT NOT NULL REFERENCES realms (id),
	payload_url TEXT    NOT NULL,
	token       TEXT    NOT NULL,
	interface   BIGINT NOT NULL
);
CREATE INDEX bot_services_realm ON bot_services (realm_id);
