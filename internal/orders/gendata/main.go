// Command gendata writes the observation pipeline's data sets:
//
//	go run ./internal/orders/gendata toolresult/testdata/shape
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolwire/toolwire/internal/orders"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendata DIR")
		os.Exit(2)
	}
	for _, s := range orders.Sets() {
		p := filepath.Join(os.Args[1], s.Name)
		if err := os.WriteFile(p, s.Data(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gendata:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", p)
	}
}
