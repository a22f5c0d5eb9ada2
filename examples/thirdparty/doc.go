// Package thirdparty is an example of a project that uses aopkit as a library and a
// testscript kit; see README.md.
package thirdparty
