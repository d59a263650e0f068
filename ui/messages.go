package ui

import (
	"embed"
	"encoding/json"
	"sync"
)

// The UI's translation files, compiled in whatever the build tags: the
// server renders stored message codes with them (exports, filters on what
// the grid shows) without a UI build.
//
//go:embed src/i18n/*.json
var translations embed.FS

var (
	messagesOnce sync.Once
	messages     map[string]map[string]string // language -> code -> template
	texts        map[string]map[string]string // language -> key -> text, every key
)

// Texts returns every text of lang by its dotted key ("recon.tabs.ticketTransaction"),
// English where lang has none; nil for a language the UI does not have.
// For what the server writes in a user's language (the daily digest). The
// map is shared: callers must not change it.
func Texts(lang string) map[string]string {
	messagesOnce.Do(loadMessages)
	return texts[lang]
}

// ServerMessages returns the serverMessages texts of lang by message code
// ("log.loaded" -> "{{file}}: {{read}} rows read, ..."), English where lang
// has none (as the UI falls back), nil for a language the UI does not have.
// The map is shared: callers must not change it.
func ServerMessages(lang string) map[string]string {
	messagesOnce.Do(loadMessages)
	return messages[lang]
}

func loadMessages() {
	messages = map[string]map[string]string{}
	texts = map[string]map[string]string{}
	for _, lang := range []string{"en", "sv", "es", "pt"} {
		b, err := translations.ReadFile("src/i18n/" + lang + ".json")
		if err != nil {
			panic(err) // the embed pattern guarantees the files
		}
		var file struct {
			ServerMessages map[string]any `json:"serverMessages"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			panic("ui/src/i18n/" + lang + ".json: " + err.Error()) // TestServerMessageCodesAreTranslated reads them too
		}
		var all map[string]any
		json.Unmarshal(b, &all)
		t := map[string]string{}
		for k, v := range texts["en"] {
			t[k] = v
		}
		flatten(all, "", t)
		texts[lang] = t
		m := map[string]string{}
		for code, text := range messages["en"] {
			m[code] = text
		}
		flatten(file.ServerMessages, "", m)
		messages[lang] = m
	}
}

func flatten(tree map[string]any, prefix string, into map[string]string) {
	for k, v := range tree {
		switch v := v.(type) {
		case string:
			if v != "" {
				into[prefix+k] = v
			}
		case map[string]any:
			flatten(v, prefix+k+".", into)
		}
	}
}
