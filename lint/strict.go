package lint

// checkStrict reports what OpenAI strict mode would reject.
func (c *checker) checkStrict() {}
