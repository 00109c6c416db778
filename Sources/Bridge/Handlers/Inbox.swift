import Contract

/// What the handlers of board commands and bridge requests share: the topics they read, the
/// parser, the boards, one refusal limiter (a flood of bad commands and requests is held
/// back together) and where the answers go.
@MainActor
struct Inbox {
    /// This bridge's topics.
    let topics: Topics
    /// Parses commands and requests, refusing what is malformed or too large.
    let parser: CommandParser
    /// The boards commands are for.
    let boards: any BoardDirectory
    /// Decides which refusals are answered and logged.
    let refusals: RefusalReporter
    /// Where answers are published.
    let publisher: any MessagePublishing
    /// Builds the answers.
    let builder: MessageBuilder

    init(
        topics: Topics, parser: CommandParser, boards: any BoardDirectory, refusals: RefusalReporter,
        publisher: any MessagePublishing
    ) {
        self.topics = topics
        self.parser = parser
        self.boards = boards
        self.refusals = refusals
        self.publisher = publisher
        builder = MessageBuilder(topics: topics)
    }
}
