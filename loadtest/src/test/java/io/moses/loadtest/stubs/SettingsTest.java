package io.moses.loadtest.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SettingsTest {
    private static double[] draws(Settings s, int n) {
        Random random = new Random(42);
        double[] x = new double[n];
        for (int i = 0; i < n; i++) x[i] = s.sampleLatencyMs(random);
        return x;
    }

    @Test
    void fixedIsAlwaysTheMean() {
        Settings s = new Settings(Settings.Distribution.FIXED, 25, 0.5, 0, Settings.FailureKind.FAULT, true);
        assertTrue(Arrays.stream(draws(s, 100)).allMatch(x -> x == 25));
    }

    @Test
    void exponentialHasTheConfiguredMeanAndSpread() {
        double[] x = draws(new Settings(Settings.Distribution.EXPONENTIAL, 40, 0, 0, Settings.FailureKind.FAULT, true), 50_000);
        double mean = Arrays.stream(x).average().orElseThrow();
        assertEquals(40, mean, 1.0);
        double sd = Math.sqrt(Arrays.stream(x).map(v -> (v - mean) * (v - mean)).sum() / x.length);
        assertEquals(40, sd, 2.0); // an exponential's standard deviation equals its mean
        assertTrue(Arrays.stream(x).allMatch(v -> v >= 0));
    }

    @Test
    void lognormalHasTheConfiguredMeanAndSigma() {
        double[] x = draws(new Settings(Settings.Distribution.LOGNORMAL, 50, 0.6, 0, Settings.FailureKind.FAULT, true), 50_000);
        assertEquals(50, Arrays.stream(x).average().orElseThrow(), 1.5);
        double[] logs = Arrays.stream(x).map(Math::log).toArray();
        double m = Arrays.stream(logs).average().orElseThrow();
        double sd = Math.sqrt(Arrays.stream(logs).map(v -> (v - m) * (v - m)).sum() / logs.length);
        assertEquals(0.6, sd, 0.02);
        assertEquals(Math.log(50) - 0.18, m, 0.02);
    }

    @Test
    void patchChangesOnlyTheGivenFields() throws Exception {
        Settings s = Settings.DEFAULT.with(new ObjectMapper().readTree("{\"latencyMs\":100,\"distribution\":\"FIXED\",\"up\":false}"));
        assertEquals(100, s.latencyMs());
        assertEquals(Settings.Distribution.FIXED, s.distribution());
        assertEquals(false, s.up());
        assertEquals(Settings.DEFAULT.failureKind(), s.failureKind());
        assertEquals(Settings.DEFAULT.sigma(), s.sigma());
    }

    @Test
    void badValuesAreNamed() {
        ObjectMapper json = new ObjectMapper();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.DEFAULT.with(json.readTree("{\"latencyMs\":-1}")));
        assertTrue(e.getMessage().startsWith("latencyMs"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Settings.DEFAULT.with(json.readTree("{\"latencyMs\":\"fast\"}")));
        assertTrue(e.getMessage().contains("latencyMs must be a number"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Settings.DEFAULT.with(json.readTree("{\"distribution\":\"gamma\"}")));
        assertTrue(e.getMessage().contains("fixed, exponential, lognormal"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Settings.DEFAULT.with(json.readTree("{\"up\":\"yes\"}")));
        assertTrue(e.getMessage().contains("up must be true or false"), e.getMessage());
    }
}
