// The Adapters module; see DESIGN.md §1.
