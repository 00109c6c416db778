// The Bridge module; see DESIGN.md §1.
