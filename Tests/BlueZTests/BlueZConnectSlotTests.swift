import BoardLink
import TestSupport
import Testing

@testable import BlueZ

@MainActor
@Suite struct BlueZConnectSlotTests {
    @Test func holdersTakeTurnsInOrder() async {
        let slot = BlueZConnectSlot()
        var order: [Int] = []
        #expect(await slot.acquire())
        let second = Task { @MainActor in
            if await slot.acquire() { order.append(2) }
        }
        let third = Task { @MainActor in
            if await slot.acquire() { order.append(3) }
        }
        await Task.yield()
        await Task.yield()
        #expect(order.isEmpty)
        slot.release()
        await second.value
        #expect(order == [2])
        slot.release()
        await third.value
        #expect(order == [2, 3])
        slot.release()
        #expect(!slot.held)
    }

    @Test func aCancelledWaiterGivesUpWithoutTheSlot() async {
        let slot = BlueZConnectSlot()
        #expect(await slot.acquire())
        let waiter = Task { @MainActor in await slot.acquire() }
        await Task.yield()
        waiter.cancel()
        #expect(await waiter.value == false)
        slot.release()
        #expect(!slot.held)
    }
}

@MainActor
@Suite struct BlueZConditionWaiterTests {
    @Test func waitsForTheConditionTimesOutAndCancels() async {
        let scheduler = ManualScheduler()
        let waiter = BlueZConditionWaiter(scheduler: scheduler)
        var ready = false
        let waiting = Task { @MainActor () -> Int? in
            try? await waiter.wait(timeout: 5, what: "ready") { ready ? .success(42) : nil }
        }
        await Task.yield()
        ready = true
        waiter.evaluate()
        #expect(await waiting.value == 42)

        let timing = Task { @MainActor () -> BlueZLinkError? in
            do throws(BlueZLinkError) {
                _ = try await waiter.wait(timeout: 1, what: "never") { () -> Result<Int, BlueZLinkError>? in nil }
                return nil
            } catch {
                return error
            }
        }
        await Task.yield()
        scheduler.advance(by: 2)
        #expect(await timing.value == .timeout("never"))

        let cancelled = Task { @MainActor () -> BlueZLinkError? in
            do throws(BlueZLinkError) {
                _ = try await waiter.wait(timeout: nil, what: "forever") { () -> Result<Int, BlueZLinkError>? in nil }
                return nil
            } catch {
                return error
            }
        }
        await Task.yield()
        cancelled.cancel()
        #expect(await cancelled.value == .cancelled)
    }
}
