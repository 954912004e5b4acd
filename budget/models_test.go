package budget

import "testing"

func TestTableLookup(t *testing.T) {
	tab := DefaultTable()
	if err := tab.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		window int
		out    int
		enc    Encoding
		ok     bool
	}{
		{"gpt-4o-2024-08-06", 128_000, 16_384, O200kBase, true},
		{"gpt-4.1-mini", 1_047_576, 32_768, O200kBase, true},
		{"gpt-5", 400_000, 128_000, O200kBase, true},
		{"openai/o4-mini", 200_000, 100_000, O200kBase, true},
		{"gpt-4-0613", 8_192, 4_096, Cl100kBase, true},
		{"gpt-4-turbo-preview", 128_000, 4_096, Cl100kBase, true},
		{"claude-sonnet-4-5-20250929", 200_000, 64_000, Estimated, true},
		{"claude-opus-4-1", 200_000, 32_000, Estimated, true},
		{"models/gemini-2.5-pro", 1_048_576, 65_536, Estimated, true},
		{"llama-3", 0, 0, "", false},
	}
	for _, tt := range tests {
		l, ok := tab.Lookup(tt.name)
		if ok != tt.ok || l.Window != tt.window || l.MaxOutput != tt.out || l.Encoding != tt.enc {
			t.Errorf("Lookup(%q) = %+v, %v; want window %d, output %d, %s, %v", tt.name, l, ok, tt.window, tt.out, tt.enc, tt.ok)
		}
	}
	custom := tab.With(Model{"gpt-4o", Limits{Window: 64_000, MaxOutput: 4_000, Encoding: O200kBase}}, Model{"llama-3", Limits{Window: 8_000, MaxOutput: 2_000, Encoding: Estimated}})
	if l, _ := custom.Lookup("gpt-4o"); l.Window != 64_000 {
		t.Errorf("With(gpt-4o 64k).Lookup(gpt-4o) = %+v, want window 64000", l)
	}
	if l, ok := custom.Lookup("llama-3-70b"); !ok || l.Window != 8_000 {
		t.Errorf("With(llama-3).Lookup(llama-3-70b) = %+v, %v, want window 8000", l, ok)
	}
	if len(custom) != len(tab)+1 {
		t.Errorf("With replaced nothing: %d rows, want %d", len(custom), len(tab)+1)
	}
	bad := Table{{"", Limits{Window: 10, MaxOutput: 20}}}
	if err := bad.Validate(); err == nil {
		t.Error("Validate(empty prefix, output above window) = nil, want an error")
	}
}

func TestRoom(t *testing.T) {
	l := Limits{Window: 128_000, MaxOutput: 16_384, Encoding: O200kBase}
	tests := []struct {
		name    string
		history int
		cfg     *RoomConfig
		want    int
	}{
		{"defaults cap at 16k", 1_000, nil, 16_000},
		{"nearly full", 115_000, nil, 3846}, // (128,000 - 115,000 - 8,192) × 0.8
		{"full", 125_000, nil, 0},
		{"no margin, no cap", 100_000, &RoomConfig{Margin: -1, MaxResult: 1 << 30, Reserve: 1_000}, 27_000},
	}
	for _, tt := range tests {
		got, err := Room(l, tt.history, tt.cfg)
		if err != nil || got != tt.want {
			t.Errorf("%s: Room(history %d) = %d, %v; want %d", tt.name, tt.history, got, err, tt.want)
		}
	}
	if _, err := Room(Limits{}, 0, nil); err == nil {
		t.Error("Room(zero limits) = nil error, want one")
	}
	if _, err := Room(l, 0, &RoomConfig{Margin: 1.5}); err == nil {
		t.Error("Room(margin 1.5) = nil error, want one")
	}
}
