import BoardKit

extension BoardCommand {
    /// The command's name as the command topic spells it (`leds`, `move`, `raw`, `session`,
    /// `request`), for the answer that a board cannot do it.
    package var topicName: String {
        switch self {
        case .indicate, .clearIndications: "leds"
        case .executeMove: "move"
        case .custom: "raw"
        case .startSession, .loadPosition, .judgeMove, .endGame: "session"
        case .requestState, .requestBattery: "request"
        }
    }
}
