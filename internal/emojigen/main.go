// Command emojigen writes the Unicode emoji name table of package chat
// (emoji_table.go) from the emoji.json file of the npm package
// emoji-datasource, version 16.0.0 (MIT licence).
//
// The dataset is not part of the repository; install it in a scratch
// directory and point the generator at it:
//
//	npm install --prefix /tmp/emoji emoji-datasource@16.0.0
//	EMOJI_DATASOURCE_JSON=/tmp/emoji/node_modules/emoji-datasource/emoji.json go generate .
//
// Each entry gives one emoji: its canonical name is the dataset's
// short_name, its aliases the other short_names, and its code the
// lower-case hexadecimal code points of "unified" joined by "-" with the
// variation selector fe0f removed.
//
// The reference server's own names (-reference, the shared
// reference-names.json: canonical names with their code and aliases)
// decide over the dataset's: each of its names means its code, and its
// canonical name is the one a code is reported under. A dataset name stays
// an alias of its code unless the reference uses it for another code;
// codes the reference does not know keep the dataset's names. The names
// only the dataset gives are listed too (datasetOnlyEmojiNames).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"slices"
	"strings"
)

type entry struct {
	Unified    string   `json:"unified"`
	ShortName  string   `json:"short_name"`
	ShortNames []string `json:"short_names"`
}

// referenceEntry is one canonical name of the reference's table.
type referenceEntry struct {
	Code    string   `json:"code"`
	Aliases []string `json:"aliases"`
}

func main() {
	in := flag.String("data", "", "path to emoji-datasource's emoji.json")
	refPath := flag.String("reference", "", "path to the reference server's reference-names.json")
	out := flag.String("out", "emoji_table.go", "Go file to write")
	flag.Parse()
	if *in == "" {
		log.Fatal("emojigen: -data is required (see the package documentation)")
	}
	raw, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	var entries []entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		log.Fatalf("emojigen: %s: %v", *in, err)
	}
	var ref map[string]referenceEntry
	if *refPath != "" {
		raw, err := os.ReadFile(*refPath)
		if err != nil {
			log.Fatal(err)
		}
		if err := json.Unmarshal(raw, &ref); err != nil {
			log.Fatalf("emojigen: %s: %v", *refPath, err)
		}
	}
	src, err := generate(entries, ref)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// code is the wire code of a dataset's "unified" value.
func code(unified string) string {
	var parts []string
	for _, p := range strings.Split(strings.ToLower(unified), "-") {
		if p != "fe0f" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "-")
}

func generate(entries []entry, ref map[string]referenceEntry) ([]byte, error) {
	nameToCode := map[string]string{}
	codeToName := map[string]string{}
	for _, e := range entries {
		c := code(e.Unified)
		if c == "" || e.ShortName == "" {
			return nil, fmt.Errorf("emojigen: entry %+v has no code or name", e)
		}
		if old, ok := codeToName[c]; ok {
			return nil, fmt.Errorf("emojigen: code %s named both %q and %q", c, old, e.ShortName)
		}
		codeToName[c] = e.ShortName
		for _, n := range append([]string{e.ShortName}, e.ShortNames...) {
			if old, ok := nameToCode[n]; ok && old != c {
				return nil, fmt.Errorf("emojigen: name %q means both %s and %s", n, old, c)
			}
			nameToCode[n] = c
		}
	}
	// The reference's names win: its codes for its names, its canonical
	// names for its codes.
	refCode := map[string]string{}
	// byStripped names a reference emoji by its code without variation
	// selectors, the form of the dataset's codes: a few of the reference's
	// codes keep fe0f, and clients send them so.
	byStripped := map[string]string{}
	for _, canonical := range sortedRefKeys(ref) {
		e := ref[canonical]
		byStripped[code(e.Code)] = canonical
		for _, n := range append([]string{canonical}, e.Aliases...) {
			if old, ok := refCode[n]; ok && old != e.Code {
				return nil, fmt.Errorf("emojigen: reference name %q means both %s and %s", n, old, e.Code)
			}
			refCode[n] = e.Code
		}
		codeToName[e.Code] = canonical
	}
	for n, c := range refCode {
		nameToCode[n] = c
	}
	// A dataset code of a reference emoji (without its variation
	// selectors) is reported under the reference's name; a code the
	// reference does not know whose dataset name the reference took for
	// another code is reported under another of its names.
	for _, e := range entries {
		c := code(e.Unified)
		if canonical, ok := byStripped[c]; ok {
			codeToName[c] = canonical
			continue
		}
		if nameToCode[codeToName[c]] == c {
			continue
		}
		found := false
		for _, n := range e.ShortNames {
			if nameToCode[n] == c {
				codeToName[c], found = n, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("emojigen: code %s has no name of its own left", c)
		}
	}
	var b bytes.Buffer
	source := "emoji-datasource 16.0.0"
	if ref != nil {
		source += " and the reference's names"
	}
	b.WriteString("// Code generated by internal/emojigen from " + source + "; DO NOT EDIT.\n\n")
	b.WriteString("package chat\n\n")
	b.WriteString("// unicodeEmojiCodes maps every Unicode emoji name, canonical or alias, to\n// its code.\n")
	b.WriteString("var unicodeEmojiCodes = map[string]string{\n")
	for _, n := range sortedKeys(nameToCode) {
		fmt.Fprintf(&b, "\t%q: %q,\n", n, nameToCode[n])
	}
	b.WriteString("}\n\n// unicodeEmojiNames maps every Unicode emoji code to its canonical name.\n")
	b.WriteString("var unicodeEmojiNames = map[string]string{\n")
	for _, c := range sortedKeys(codeToName) {
		fmt.Fprintf(&b, "\t%q: %q,\n", c, codeToName[c])
	}
	b.WriteString("}\n")
	if ref != nil {
		b.WriteString("\n// datasetOnlyEmojiNames are the names that only the dataset gives, which\n" +
			"// the reference does not know: reactions and statuses accept them, and\n" +
			"// messages leave them text, as the reference's do.\n")
		b.WriteString("var datasetOnlyEmojiNames = map[string]bool{\n")
		for _, n := range sortedKeys(nameToCode) {
			if _, ok := refCode[n]; !ok {
				fmt.Fprintf(&b, "\t%q: true,\n", n)
			}
		}
		b.WriteString("}\n")
	}
	return format.Source(b.Bytes())
}

func sortedRefKeys(m map[string]referenceEntry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
