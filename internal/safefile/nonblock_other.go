//go:build !unix

package safefile

import "os"

const openFlags = 0

const noFollow = 0

func clearNonblock(*os.File) error { return nil }
