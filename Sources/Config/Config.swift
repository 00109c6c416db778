// The Config module; see DESIGN.md §1.
