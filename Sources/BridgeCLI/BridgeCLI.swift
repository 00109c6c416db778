// The BridgeCLI module; see DESIGN.md §1.
