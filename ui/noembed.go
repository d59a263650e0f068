//go:build !embedui

// Package ui holds the React application (Vite, TypeScript) and, in builds
// with the embedui tag, its compiled files. Without the tag (plain `go build`,
// `go test`), the binary serves a page that says how to build the UI, so Go
// code compiles and tests run before any npm step.
package ui

import "io/fs"

// Dist returns nil: this build has no UI compiled in.
func Dist() fs.FS { return nil }
