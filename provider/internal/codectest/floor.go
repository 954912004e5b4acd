package codectest

// The floor is encoding/json by definition: this file is the one place,
// with bench/loop/floor, where the module runs encoding/json outside tests.
import (
	"encoding/json"
	"testing"
)

// BenchFloor measures encoding/json unmarshalling body into a T and
// marshalling it back: the floor a codec's decode+encode is compared with.
func BenchFloor[T any](b *testing.B, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var v T
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}
