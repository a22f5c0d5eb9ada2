package conform

// At names the transcript records an outcome rests on (Outcome.Seq): the
// message that broke the rule, or the pair that disagree.
func (o Outcome) At(seqs ...int) Outcome {
	o.Seq = seqs
	return o
}
