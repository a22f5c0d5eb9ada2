//go:build race

package schema_test

// raceEnabled: TestGeneratedAgreesWithGojsonschema skips under the race
// detector. It validates a corpus and its mutants with both validators in one
// goroutine: nothing for the detector to find, and several times slower under
// it (jsonread's unsafe code, which checkptr watches, is parsed the same
// fixtures under -race by its own tests and lint/all's goldens). .ci/run runs
// this package without -race too, where it runs.
const raceEnabled = true
