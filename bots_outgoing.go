package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
)

// Outgoing-webhook bots: a message that mentions such a bot in a channel,
// or a direct message to it, is POSTed to the bot's URL after the message
// is stored, and a reply in the answer ({"content": ...}) is sent back as
// the bot, to the same topic or conversation, as the reference does.

// ErrOutgoingWebhooksDisabled refuses outgoing-webhook bots on a server
// without Config.OutgoingWebhookClient.
var ErrOutgoingWebhooksDisabled = errorf("Outgoing webhook bots are not enabled on this server.")

// Limits of outgoing webhooks: how many requests run at once, and how much
// of an answer is read.
const (
	maxOutgoingWebhooks      = 8
	maxOutgoingWebhookAnswer = 64 << 10
)

// InterfaceZulip is the payload format of outgoing webhooks that the
// reference calls GENERIC (1).
const InterfaceZulip = 1

// checkPayloadURL checks the URL of a new outgoing-webhook bot.
func checkPayloadURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errorf("payload_url is not a URL")
	}
	return nil
}

// outgoingPayload is what an outgoing webhook receives.
type outgoingPayload struct {
	Data        string         `json:"data"`
	Token       string         `json:"token"`
	Message     map[string]any `json:"message"`
	BotEmail    string         `json:"bot_email"`
	BotFullName string         `json:"bot_full_name"`
	Trigger     string         `json:"trigger"`
}

// outgoingAnswer is what an outgoing webhook may answer.
type outgoingAnswer struct {
	Content             *string `json:"content"`
	ResponseNotRequired bool    `json:"response_not_required"`
}

// outgoingCall is one request of an outgoing-webhook bot to make once the
// message that triggered it is committed.
type outgoingCall struct {
	svc     storage.BotService
	bot     storage.UserRecord
	payload outgoingPayload
}

// planOutgoingWebhooks finds, in the transaction that stores m, the
// outgoing-webhook bots that m triggers (mentioned in a channel, or in a
// direct message). Messages of bots trigger none, so that bots cannot talk
// to each other forever.
func (s *Service) planOutgoingWebhooks(tx storage.Tx, m *storage.MessageRecord, sender *storage.UserRecord,
	mentioned map[int64]bool) ([]outgoingCall, error) {
	if s.cfg.OutgoingWebhookClient == nil || sender.IsBot() {
		return nil, nil
	}
	if m.RecipientType == RecipientChannel && len(mentioned) == 0 {
		// Most channel messages mention nobody: no bot to look for.
		return nil, nil
	}
	services, err := tx.RealmBotServices(m.RealmID)
	if err != nil || len(services) == 0 {
		return nil, err
	}
	var calls []outgoingCall
	var channelName string
	for _, sv := range services {
		trigger := ""
		switch {
		case m.RecipientType == RecipientChannel && mentioned[sv.BotID]:
			trigger = "mention"
		case m.RecipientType != RecipientChannel && slices.Contains(m.DirectUserIDs, sv.BotID):
			trigger = "direct_message"
		default:
			continue
		}
		bot, err := tx.User(sv.BotID)
		if err != nil {
			return nil, err
		}
		if !bot.IsActive || bot.BotType != BotOutgoingWebhook {
			continue
		}
		if m.RecipientType == RecipientChannel && channelName == "" {
			c, err := tx.Channel(m.ChannelID)
			if err != nil {
				return nil, err
			}
			channelName = c.Name
		}
		msg := map[string]any{"id": m.ID, "sender_id": sender.ID, "sender_email": sender.Email,
			"sender_full_name": sender.FullName, "content": m.Content, "rendered_content": m.RenderedContent,
			"timestamp": m.DateSent.Unix(), "client": m.Client}
		if m.RecipientType == RecipientChannel {
			msg["type"], msg["stream_id"], msg["display_recipient"], msg["subject"], msg["topic"] =
				"stream", m.ChannelID, channelName, m.Topic, m.Topic
		} else {
			msg["type"], msg["recipient_ids"] = "private", m.DirectUserIDs
		}
		token, err := s.shownAPIKey(sv.Token)
		if err != nil {
			return nil, err
		}
		calls = append(calls, outgoingCall{svc: sv, bot: bot, payload: outgoingPayload{Data: m.Content, Token: token,
			Message: msg, BotEmail: bot.Email, BotFullName: bot.FullName, Trigger: trigger}})
	}
	return calls, nil
}

// startOutgoingWebhooks makes the calls in the background, at most
// maxOutgoingWebhooks at once (a sender waits for a free one), and sends
// each reply as the bot to the topic or conversation of m.
func (s *Service) startOutgoingWebhooks(calls []outgoingCall, m *storage.MessageRecord) {
	for _, c := range calls {
		s.outgoing <- struct{}{}
		s.outgoingDone.Add(1)
		go func() {
			defer func() { <-s.outgoing; s.outgoingDone.Done() }()
			content, err := s.callOutgoingWebhook(c.svc, c.payload)
			if err != nil {
				s.cfg.Logger.Warn("outgoing webhook", "bot", c.bot.ID, "url", c.svc.PayloadURL, "err", err)
				return
			}
			if content == "" {
				return
			}
			req := SendMessageRequest{Content: content, Client: "OutgoingWebhookResponse"}
			if m.RecipientType == RecipientChannel {
				topic := m.Topic
				req.Type, req.To, req.Topic = "stream", &MessageTo{IDs: []int64{m.ChannelID}}, &topic
			} else {
				others := slices.DeleteFunc(slices.Clone(m.DirectUserIDs), func(id int64) bool { return id == c.bot.ID })
				req.Type, req.To = "direct", &MessageTo{IDs: others}
			}
			if _, err := s.SendMessage(context.Background(), AsUser(c.bot.ID), req); err != nil {
				s.cfg.Logger.Warn("outgoing webhook reply", "bot", c.bot.ID, "err", err)
			}
		}()
	}
}

// callOutgoingWebhook POSTs the payload and returns the reply content of
// the answer, "" for none.
func (s *Service) callOutgoingWebhook(sv storage.BotService, p outgoingPayload) (string, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sv.PayloadURL, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "chatd-outgoing-webhook")
	res, err := s.cfg.OutgoingWebhookClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxOutgoingWebhookAnswer+1))
	if err != nil {
		return "", err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return "", errors.New("answered " + res.Status)
	}
	if len(data) > maxOutgoingWebhookAnswer || len(bytes.TrimSpace(data)) == 0 {
		return "", nil
	}
	var a outgoingAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return "", errors.New("answer is not JSON")
	}
	if a.ResponseNotRequired || a.Content == nil {
		return "", nil
	}
	return strings.TrimSpace(*a.Content), nil
}
