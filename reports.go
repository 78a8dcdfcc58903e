package chat

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/internal/markdown"
	"github.com/teamchat/chat/storage"
)

// Report texts.
var (
	ErrInvalidReportType     = errorf("Invalid report_type: Value error, Not in the list of possible values")
	ErrReportDescriptionLong = errorf("description is too long (limit: %d characters)", maxReportDescriptionLength)
	ErrReportNeedsExplain    = errorf("An explanation is required.")
	ErrReportingDisabled     = errorf("Message reporting is not enabled in this organization.")
)

const (
	maxReportDescriptionLength = 1000
	// maxReportedContentLength is what the report quotes of the message:
	// the message limit less room for the report's own text.
	maxReportedContentLength = MaxMessageLength - 1000 - 500
)

// ReportMessage reports a message the actor may read to the moderators:
// the notification bot posts the report to the organization's moderation
// request channel, in the topic "{sender's name} moderation". reportType is a key of ReportMessageTypes.
//
// Errors, in order: ErrInvalidReportType, ErrReportDescriptionLong,
// ErrReportNeedsExplain, ErrReportingDisabled, ErrInvalidMessage, and
// those of the actor check.
func (s *Service) ReportMessage(ctx context.Context, actor Actor, id int64, reportType, description string) error {
	label := ""
	for _, t := range ReportMessageTypes {
		if t.Key == reportType {
			label = t.Name
		}
	}
	if label == "" {
		return ErrInvalidReportType
	}
	if utf8.RuneCountInString(description) > maxReportDescriptionLength {
		return ErrReportDescriptionLong
	}
	if reportType == "other" && strings.TrimSpace(description) == "" {
		return ErrReportNeedsExplain
	}
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		if cc.realm.ModerationRequestChannelID == 0 {
			return ErrReportingDisabled
		}
		m, _, err := readableMessage(tx, cc, id)
		if err != nil {
			return err
		}
		mod, err := tx.Channel(cc.realm.ModerationRequestChannelID)
		if err != nil {
			return err
		}
		people, err := tx.Users(cc.realm.ID, append([]int64{m.SenderID}, m.DirectUserIDs...))
		if err != nil {
			return err
		}
		byID := map[int64]*storage.UserRecord{}
		for i := range people {
			byID[people[i].ID] = &people[i]
		}
		sender := byID[m.SenderID]
		senderName, senderMention := NotificationBotName, "@_**"+NotificationBotName+"**"
		if sender != nil {
			senderName, senderMention = sender.FullName, mention(sender, true)
		}
		var b strings.Builder
		b.WriteString(mention(&cc.actor, true) + " reported ")
		var original string
		if m.RecipientType == RecipientChannel {
			c, err := tx.Channel(m.ChannelID)
			if err != nil {
				return err
			}
			b.WriteString("a message sent by " + senderMention)
			original = "Original message at " + messageLinkMarkdown(&c, m.Topic, m.ID)
		} else {
			b.WriteString("a direct message sent by " + senderMention)
			var others []string
			for _, uid := range m.DirectUserIDs {
				if uid != m.SenderID && byID[uid] != nil {
					others = append(others, mention(byID[uid], true))
				}
			}
			if len(others) > 0 {
				b.WriteString(" to " + joinEnglish(others))
			}
			original = "[Original message](" + dmNarrowURL(&m) + ")"
		}
		b.WriteString(" at <time:" + m.DateSent.UTC().Format("2006-01-02T15:04:05+00:00") + ">.\n")
		reason := "**" + label + "**."
		if description != "" {
			reason += " " + description
		}
		b.WriteString("```quote\n" + reason + "\n```\n\n")
		quoted := m.Content
		if utf8.RuneCountInString(quoted) > maxReportedContentLength {
			quoted = string([]rune(quoted)[:maxReportedContentLength-len(messageTruncated)]) + messageTruncated
		}
		fence := strings.Repeat("`", max(3, longestFence(quoted)+1))
		b.WriteString(fence + " spoiler " + original + "\n" + quoted + "\n" + fence)

		topic := senderName + " moderation"
		if effectiveTopicsPolicy(&mod, &cc.realm) == TopicsEmptyTopicOnly {
			topic = ""
		} else if t, err := normaliseTopic(topic); err == nil {
			topic = t
		}
		bot := &botMessages{realmID: cc.realm.ID, now: s.now()}
		bot.toChannel(&mod, topic, b.String())
		return s.sendBotMessages(tx, emit, bot, map[int64]*storage.Channel{mod.ID: &mod}, nil)
	})
}

// messageLinkMarkdown links a channel message: #**channel>topic@id**, or
// a plain Markdown link when the names would break that syntax.
func messageLinkMarkdown(c *storage.Channel, topic string, id int64) string {
	if strings.ContainsAny(c.Name, "*>") || strings.ContainsAny(topic, "*") {
		return "[#" + c.Name + " > " + topicDisplay(topic) + " @ 💬](/#narrow/channel/" + markdown.ChannelSlug(c.ID, c.Name) +
			"/topic/" + markdown.HashComponent(topic) + "/near/" + strconv.FormatInt(id, 10) + ")"
	}
	return "#**" + c.Name + ">" + topic + "@" + strconv.FormatInt(id, 10) + "**"
}

// dmNarrowURL is the narrow URL of a direct message: its participants'
// IDs, then "dm" or "group".
func dmNarrowURL(m *storage.MessageRecord) string {
	ids := make([]string, len(m.DirectUserIDs))
	for i, id := range m.DirectUserIDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	kind := "dm"
	if len(ids) > 2 {
		kind = "group"
	}
	return "/#narrow/dm/" + strings.Join(ids, ",") + "-" + kind + "/near/" + strconv.FormatInt(m.ID, 10)
}

// joinEnglish joins "A", "A and B", "A, B, and C".
func joinEnglish(items []string) string {
	switch len(items) {
	case 1:
		return items[0]
	case 2:
		return items[0] + " and " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + ", and " + items[len(items)-1]
}

// longestFence returns the length of the longest run of three or more
// backticks that opens a line (after at most three spaces) in s.
func longestFence(s string) int {
	longest := 0
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue
		}
		n := len(trimmed) - len(strings.TrimLeft(trimmed, "`"))
		if n >= 3 && n > longest {
			longest = n
		}
	}
	return longest
}
