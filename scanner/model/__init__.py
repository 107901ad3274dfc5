"""The shared vocabulary every layer uses: locations, kinds of definition, rules and findings."""
