package chat

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/teamchat/chat/storage"
)

// personalSetting is a display or notification setting kept by name (see
// storage.UserSettingsTx): its kind follows its default's type, and some
// take only the reference's values.
type personalSetting struct {
	// values are the allowed values of an enumeration (ints or strings),
	// nil for any value of the kind.
	values []any
}

// readOnlySettings are keys of the user_settings block that are
// information, not settings.
var readOnlySettings = []string{"available_notification_sounds", "emojiset_choices"}

// personalSettingValues are the reference's values of its enumerated
// settings.
var personalSettingValues = map[string][]any{
	"color_scheme": {1, 2, 3}, "web_mark_read_on_scroll_policy": {1, 2, 3}, "web_channel_default_view": {1, 2, 3, 4},
	"demote_inactive_streams": {1, 2, 3}, "user_list_style": {1, 2, 3}, "web_stream_unreads_count_display_policy": {1, 2, 3},
	"automatically_follow_topics_policy": {1, 2, 3, 4}, "automatically_unmute_topics_in_muted_streams_policy": {1, 2, 3, 4},
	"desktop_icon_count_display": {1, 2, 3}, "realm_name_in_email_notifications_policy": {1, 2, 3},
	"email_notifications_batching_period_seconds": nil,
	"web_home_view":                          {"recent_topics", "inbox", "all_messages"},
	"emojiset":                               {"google", "twitter", "text"},
	"web_animate_image_previews":             {"always", "on_hover", "never"},
	"resolved_topic_notice_auto_read_policy": {"always", "except_followed", "never"},
	"notification_sound":                     {"zulip", "none"},
}

// PersonalSettingNames lists the display and notification settings that
// UpdateSettings takes in SettingsUpdate.Values, sorted.
func PersonalSettingNames() []string {
	var out []string
	for name := range userSettingDefaults {
		if !slices.Contains(readOnlySettings, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// IsStringSetting reports whether the named personal setting takes a
// string, which requests send as it is rather than as JSON.
func IsStringSetting(name string) bool {
	_, ok := userSettingDefaults[name].(string)
	return ok
}

// checkPersonalSetting decodes a value of the named setting and checks it
// against the setting's kind and values. The error is the reference's
// "Invalid {name}".
func checkPersonalSetting(name string, raw json.RawMessage) (any, error) {
	def, ok := userSettingDefaults[name]
	if !ok || slices.Contains(readOnlySettings, name) {
		return nil, errorf("Invalid %s", name)
	}
	var v any
	switch def.(type) {
	case bool:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, errorf("%s is not a boolean", name)
		}
		v = b
	case int:
		var n int
		if json.Unmarshal(raw, &n) != nil || n < 0 {
			return nil, errorf("%s is not an integer", name)
		}
		v = n
	case string:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, errorf("%s is not a string", name)
		}
		if name == "default_language" && !slices.Contains(Languages, s) {
			return nil, errorf("Invalid default_language")
		}
		v = s
	default:
		return nil, errorf("Invalid %s", name)
	}
	if allowed := personalSettingValues[name]; allowed != nil && !slices.Contains(allowed, v) {
		return nil, errorf("Invalid %s", name)
	}
	return v, nil
}

// personalSettings returns the user's display and notification settings:
// the reference's defaults, with the user's choices over them.
func personalSettings(tx storage.Tx, userID int64) (map[string]any, error) {
	stored, err := tx.UserSettings(userID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(userSettingDefaults))
	for k, v := range userSettingDefaults {
		out[k] = v
	}
	for k, text := range stored {
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, err
		}
		if f, ok := v.(float64); ok {
			v = int(f)
		}
		out[k] = v
	}
	return out, nil
}

// encodeSetting is the stored JSON text of a checked value.
func encodeSetting(v any) string {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
