package replay

import (
	"bytes"

	"go.yaml.in/yaml/v3"
)

// A File is what a replay file holds: the dialect the history is checked
// by, the model whose limits apply, and the recorded conversations. A
// run recorded with toolwire run --record is written as one.
type File struct {
	Dialect       string
	Model         string
	Conversations []Conversation
}

// Contents returns what m was read from, to add a conversation to it.
func (m *Model) Contents() *File {
	return &File{Dialect: string(m.dialect), Model: m.model, Conversations: append([]Conversation(nil), m.convs...)}
}

// Add adds c to f, in place of a conversation with the same question.
func (f *File) Add(c Conversation) {
	for i, x := range f.Conversations {
		if normalize(x.Question) == normalize(c.Question) {
			f.Conversations[i] = c
			return
		}
	}
	f.Conversations = append(f.Conversations, c)
}

// Marshal writes f as a replay file in YAML, which [Parse] reads back to
// the same turns: texts exactly, and each call's arguments as the JSON
// string the model sent, so that a replayed run shows the same calls.
func (f *File) Marshal() ([]byte, error) {
	type call struct {
		ID   string `yaml:"id,omitempty"`
		Name string `yaml:"name"`
		Args string `yaml:"args"`
	}
	type turn struct {
		Text  string `yaml:"text,omitempty"`
		Calls []call `yaml:"calls,omitempty"`
	}
	type conversation struct {
		Question string `yaml:"question"`
		Turns    []turn `yaml:"turns"`
	}
	type file struct {
		Dialect       string         `yaml:"dialect,omitempty"`
		Model         string         `yaml:"model,omitempty"`
		Conversations []conversation `yaml:"conversations"`
	}
	out := file{Dialect: f.Dialect, Model: f.Model}
	for _, c := range f.Conversations {
		oc := conversation{Question: c.Question}
		for _, t := range c.Turns {
			ot := turn{Text: t.Text}
			for _, cl := range t.Calls {
				ot.Calls = append(ot.Calls, call{ID: cl.ID, Name: cl.Name, Args: string(cl.Args)})
			}
			oc.Turns = append(oc.Turns, ot)
		}
		out.Conversations = append(out.Conversations, oc)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
