package lint

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestIdentWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"acct_num", []string{"acct", "num"}},
		{"createUserAndSendEmail", []string{"create", "user", "and", "send", "email"}},
		{"HTTPServer_id", []string{"http", "server", "id"}},
		{"get-weather.v2", []string{"get", "weather", "v2"}},
		{"userID", []string{"user", "id"}},
		{"", nil},
		{"__", nil},
	}
	for _, tt := range tests {
		if got := identWords(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("identWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTextLen(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"City name", 9},
		{"  City \n\t name  ", 9},
		{"城市名称", 12},
		{"城市 name", 11},
	}
	for _, tt := range tests {
		if got := textLen(tt.in); got != tt.want {
			t.Errorf("textLen(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestVagueTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Returns the forecast for one city.", nil},
		{"Returns related data, some fields etc.", []string{"related", "some", "etc"}},
		{"Things and stuff and so on", []string{"things", "stuff", "and so on"}},
		{"Somewhere sometimes", nil},
		{"Some SOME some", []string{"some"}},
		{"返回一些相关的数据", []string{"一些", "相关"}},
		{"天气、气温等信息", []string{"等"}},
		{"天气、气温等等", []string{"等等"}},
		{"按相关性排序，请等待，最高温度等于最低温度，平等对待", nil},
		{"各种某些之类的什么的", []string{"各种", "某些", "之类", "什么的"}},
	}
	for _, tt := range tests {
		if got := vagueTerms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("vagueTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAbbreviated(t *testing.T) {
	tests := []struct {
		name     string
		want     []string // abbreviated words
		wantName string   // expandName
	}{
		{"acct_num", []string{"acct", "num"}, "account_number"},
		{"usrId", []string{"usr"}, "userId"},
		{"AcctNo", []string{"acct", "no"}, "AccountNumber"},
		{"cust-addr", []string{"cust", "addr"}, "customer-address"},
		{"mgmt_level", []string{"mgmt"}, "mgmt_level"},
		{"user_dob", []string{"dob"}, "user_date_of_birth"},
		{"userDob", []string{"dob"}, "userDateOfBirth"},
		{"sku_id", nil, "sku_id"},
		{"sort_by", nil, "sort_by"},
		{"html_body", nil, "html_body"},
		{"city", nil, "city"},
		{"x", nil, "x"},
	}
	for _, tt := range tests {
		words := identWords(tt.name)
		var got []string
		for _, f := range abbreviated(words) {
			got = append(got, f[0])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("abbreviated(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if got := expandName(tt.name, words); got != tt.wantName {
			t.Errorf("expandName(%q) = %q, want %q", tt.name, got, tt.wantName)
		}
	}
}

func TestCompoundName(t *testing.T) {
	tests := []struct {
		name              string
		ok                bool
		first, second, by string
	}{
		{"update_profile_and_send_email", true, "update_profile", "send_email", "and"},
		{"createUserAndThenNotifyAdmin", true, "create_user", "notify_admin", "and then"},
		{"search-then-book", false, "", "", ""}, // "book" is as often a noun
		{"search_then_delete", true, "search", "delete", "then"},
		{"get_name_and_address", false, "", "", ""},
		{"and_send", false, "", "", ""},
		{"send_and", false, "", "", ""},
		{"rock_and_roll", false, "", "", ""},
	}
	for _, tt := range tests {
		by, first, second, ok := compoundName(tt.name)
		if ok != tt.ok || first != tt.first || second != tt.second || by != tt.by {
			t.Errorf("compoundName(%q) = %q, %q, %q, %v, want %q, %q, %q, %v", tt.name, by, first, second, ok, tt.by, tt.first, tt.second, tt.ok)
		}
	}
}

func TestCompoundDescription(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"Updates the profile, then sends an email.", "then sends"},
		{"Creates the user and notifies the admins.", "and notifies"},
		{"Searches flights and returns the cheapest.", ""},
		{"Returns more than ten results.", ""},
		{"更新用户资料，然后发送邮件", "然后"},
		{"查询航班并返回最便宜的", ""},
	}
	for _, tt := range tests {
		got, ok := compoundDescription(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("compoundDescription(%q) = %q, %v, want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestPortableNameFor(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get.weather", "get_weather"},
		{"get weather now", "get_weather_now"},
		{"3d_render", "tool_3d_render"},
		{"", "tool"},
		{"获取天气", "tool"},
		{"mcp:server/tool", "mcp_server_tool"},
		{strings.Repeat("a", 70), strings.Repeat("a", 64)},
		{"-x", "tool_-x"},
	}
	re := regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)
	for _, tt := range tests {
		got := portableNameFor(tt.in)
		if got != tt.want {
			t.Errorf("portableNameFor(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !re.MatchString(got) {
			t.Errorf("portableNameFor(%q) = %q, which breaks the portable name rule", tt.in, got)
		}
	}
}

// TestNameProviders pins which provider each kind of bad name breaks, with
// the rule IDs of docs/provider-rules.md.
func TestNameProviders(t *testing.T) {
	tests := []struct {
		name string
		want []string // provider:rule
	}{
		{"get.weather", []string{"OpenAI:OAI-CC-TOOLNAME-PATTERN", "Anthropic:ANT-TOOLNAME"}},
		{"ns:get_weather", []string{"OpenAI:OAI-CC-TOOLNAME-PATTERN", "Anthropic:ANT-TOOLNAME"}},
		{"3d_render", []string{"Gemini:GEM-NAME"}},
		{"-render", []string{"Gemini:GEM-NAME"}},
		{strings.Repeat("a", 65), []string{"OpenAI:OAI-CC-TOOLNAME-LEN", "Anthropic:ANT-TOOLNAME", "Gemini:GEM-NAME"}},
		{strings.Repeat("a", 129), []string{"OpenAI:OAI-CC-TOOLNAME-LEN", "Anthropic:ANT-TOOLNAME", "Gemini:GEM-NAME"}},
		{"get weather", []string{"OpenAI:OAI-CC-TOOLNAME-PATTERN", "Anthropic:ANT-TOOLNAME", "Gemini:GEM-NAME"}},
		{"", []string{"OpenAI:OAI-CC-TOOLNAME-PATTERN", "Anthropic:ANT-TOOLNAME", "Gemini:GEM-NAME"}},
		{"get_weather", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range nameProblems(tt.name) {
			got = append(got, p.provider+":"+p.rule)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("nameProblems(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
