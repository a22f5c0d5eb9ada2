package checks

var aopOutBindExitZero = exitZeroFor("aop-output", "The agent prints its report on stdout, writes its details file and exits 0.",
	"aop-output/format/markers")
