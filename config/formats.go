package config

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
)

// parseYAML reads a mapping of keys to scalars. It walks the node tree
// rather than decoding into a map so that a value's literal type
// (a quoted "true" is text) and its line survive for the checks.
func parseYAML(data []byte) (map[string]rawValue, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := map[string]rawValue{}
	if len(doc.Content) == 0 {
		return out, nil // empty, or only comments
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: wants \"key: value\" lines, one setting each", m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a key is a name such as chroma-url", k.Line)
		}
		if _, dup := out[k.Value]; dup {
			return nil, fmt.Errorf("line %d: %s is set twice", k.Line, k.Value)
		}
		out[k.Value] = yamlValue(v)
	}
	return out, nil
}

func yamlValue(v *yaml.Node) rawValue {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	rv := rawValue{line: v.Line, text: v.Value}
	switch {
	case v.Kind == yaml.SequenceNode:
		rv.other = "a list"
	case v.Kind != yaml.ScalarNode:
		rv.other = "a table"
	case v.ShortTag() == "!!null":
		rv.other = "nothing"
	case v.ShortTag() == "!!bool":
		rv.isBool = true
	case v.ShortTag() == "!!int", v.ShortTag() == "!!float":
		rv.isNum = true
	}
	return rv
}

// parseTOML reads top-level keys; TOML types its values itself.
func parseTOML(data []byte) (map[string]rawValue, error) {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return nil, err
	}
	out := make(map[string]rawValue, len(m))
	for k, v := range m {
		rv := rawValue{quoted: true}
		switch v := v.(type) {
		case string:
			rv.text = v
		case bool:
			rv.text, rv.isBool = strconv.FormatBool(v), true
		case int64:
			rv.text, rv.isNum = strconv.FormatInt(v, 10), true
		case float64:
			rv.text, rv.isNum = strconv.FormatFloat(v, 'g', -1, 64), true
		case time.Time:
			rv.other = "a date or time"
		case []any, []map[string]any:
			rv.other = "a list"
		default:
			rv.other = "a table"
		}
		out[k] = rv
	}
	return out, nil
}
