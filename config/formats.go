package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
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
