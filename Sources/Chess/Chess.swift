// The Chess module; see DESIGN.md §1.
