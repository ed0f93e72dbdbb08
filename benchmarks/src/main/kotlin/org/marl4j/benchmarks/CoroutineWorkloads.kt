package org.marl4j.benchmarks

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

/**
 * The coroutine workloads of [CoroutinesBenchmark], written in Kotlin (JMH's annotation processor
 * sees only Java, so the `@Benchmark` methods are Java and call these). Each runs on the given
 * dispatcher and returns only when all of its coroutines have finished; the benchmark thread waits
 * in `runBlocking`.
 */
object CoroutineWorkloads {

    /** Launches [count] no-op coroutines on [dispatcher] from a coroutine on it, and joins them all. */
    @JvmStatic
    fun launchAndJoin(dispatcher: CoroutineDispatcher, count: Int): Int =
        launchAll(dispatcher, count, CoroutineStart.DEFAULT)

    /**
     * Floor of [launchAndJoin]: each coroutine starts UNDISPATCHED on [dispatcher], so it runs to
     * its end inside `launch` and nothing is ever queued: kotlinx's own cost of a launch and join.
     */
    @JvmStatic
    fun launchUndispatched(dispatcher: CoroutineDispatcher, count: Int): Int =
        launchAll(dispatcher, count, CoroutineStart.UNDISPATCHED)

    private fun launchAll(dispatcher: CoroutineDispatcher, count: Int, start: CoroutineStart): Int = runBlocking {
        var launched = 0
        withContext(dispatcher) {
            coroutineScope {
                repeat(count) {
                    launch(start = start) { }
                    launched++
                }
            }
        }
        launched
    }

    /**
     * Floor of [channelPingPong]: the same ping-pong on `runBlocking`'s own event loop, one thread
     * and no synchronized queue: what kotlinx's channels cost with nothing to hand between threads.
     */
    @JvmStatic
    fun channelPingPongOnEventLoop(roundTrips: Int): Int = runBlocking { pingPong(roundTrips) }

    /**
     * Two coroutines on [dispatcher] pass a counter back and forth [roundTrips] times over two
     * rendezvous [Channel]s.
     */
    @JvmStatic
    fun channelPingPong(dispatcher: CoroutineDispatcher, roundTrips: Int): Int =
        runBlocking { withContext(dispatcher) { pingPong(roundTrips) } }

    /** Two coroutines in the caller's context pass a counter back and forth [roundTrips] times over two rendezvous channels. */
    private suspend fun pingPong(roundTrips: Int): Int {
        val ping = Channel<Int>()
        val pong = Channel<Int>()
        var last = 0
        coroutineScope {
            launch {
                repeat(roundTrips) { pong.send(ping.receive() + 1) }
            }
            launch {
                repeat(roundTrips) {
                    ping.send(last)
                    last = pong.receive()
                }
            }
        }
        return last
    }

    /** Starts [count] coroutines on [dispatcher] that each `delay(1)`, and waits for them all. */
    @JvmStatic
    fun delayEach(dispatcher: CoroutineDispatcher, count: Int): Int = runBlocking {
        var started = 0
        withContext(dispatcher) {
            repeat(count) {
                launch { delay(1) }
                started++
            }
        }
        started
    }
}
