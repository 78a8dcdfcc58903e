package slackimport

// KindCount is how many items of one kind an import skipped or altered,
// and why.
type KindCount struct {
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

// ReportItem is one item that an import skipped or altered.
type ReportItem struct {
	// Kind is a key of Result.Skipped or Result.Altered; Action says
	// which: "skipped" or "altered".
	Kind   string `json:"kind"`
	Action string `json:"action"`
	Reason string `json:"reason"`
	// Channel is the export's folder of the conversation (a channel's
	// name, a direct conversation's ID or name), empty for items outside
	// conversations.
	Channel string `json:"channel,omitempty"`
	// TS is the Slack timestamp of the message concerned, as the export
	// writes it.
	TS string `json:"ts,omitempty"`
	// User is the Slack ID of the user concerned.
	User string `json:"user,omitempty"`
	// Detail names what was skipped or altered: an emoji, a file, a
	// subtype, a topic.
	Detail string `json:"detail,omitempty"`
}

// Kinds of skipped items, with their reasons.
var skippedReasons = map[string]string{
	"channel_event":               "channel event (join, leave, rename, pin): the channel's own state shows it",
	"not_a_message":               "element of a day file whose type is not \"message\"",
	"no_sender":                   "message without user, bot, or file or comment owner",
	"empty_message":               "message with no text, attachment or file once converted",
	"reaction_unknown_emoji":      "reaction whose emoji is neither a Unicode emoji nor in emoji.json",
	"reaction_unknown_user":       "reaction by a user not in users.json",
	"reaction_duplicate":          "reaction that repeats the user's reaction under another name of the same emoji",
	"reaction_of_skipped_message": "reaction on a message that was not imported",
	"deleted_file":                "file deleted or hidden by Slack (tombstone), with nothing to store or link",
	"unread_file":                 "JSON file in a conversation folder that is not a day file (YYYY-MM-DD.json)",
	"invalid_custom_emoji":        "custom emoji of emoji.json whose name is invalid here",
}

// Kinds of altered items, with their reasons.
var alteredReasons = map[string]string{
	"missing_file":            "file not in the export: the message links its Slack URL",
	"file_too_large":          "file over the upload size limit: the message links its Slack URL",
	"placeholder_user":        "user not in users.json: imported as a deactivated placeholder",
	"unlisted_folder":         "folder not listed in channels.json, groups.json, dms.json or mpims.json: imported as a private channel of the users who wrote in it",
	"topic_renamed":           "thread whose topic name another thread of the channel has: numbered",
	"direct_thread_flattened": "thread reply in a direct conversation, which has no topics here: imported in the conversation",
	"unknown_mention":         "mention of a user or channel not in the export: kept as text",
}

// skip records a skipped item.
func (im *slackImport) skip(kind string, item ReportItem) { im.record(kind, "skipped", item) }

// alter records an altered item.
func (im *slackImport) alter(kind string, item ReportItem) { im.record(kind, "altered", item) }

func (im *slackImport) record(kind, action string, item ReportItem) {
	reasons, counts := skippedReasons, im.res.Skipped
	if action == "altered" {
		reasons, counts = alteredReasons, im.res.Altered
	}
	reason, ok := reasons[kind]
	if !ok {
		panic("slackimport: unknown report kind " + kind)
	}
	c := counts[kind]
	c.Count++
	c.Reason = reason
	counts[kind] = c
	item.Kind, item.Action, item.Reason = kind, action, reason
	im.res.Report = append(im.res.Report, item)
}
